# wrong: rounds every state to 4 decimals "for readability"

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = round(math.tanh(w_x * value + w_h * state + b), 4)
        states.append(state)
    return states
