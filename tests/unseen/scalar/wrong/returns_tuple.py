# wrong: returns a tuple, the contract asks for a list

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return tuple(states)
