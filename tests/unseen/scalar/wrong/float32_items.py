# wrong: the items are numpy.float32, not Python floats (and only single precision)

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = np.float32(0.0), []
    for value in sequence:
        state = np.tanh(np.float32(w_x * value + w_h * state + b))
        states.append(state)
    return states
