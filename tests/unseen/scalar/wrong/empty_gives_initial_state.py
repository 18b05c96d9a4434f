# wrong only for the empty sequence: returns [0.0] instead of []

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states or [0.0]
