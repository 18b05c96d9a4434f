# right: numpy scalars; np.float64 is a subclass of float

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = np.float64(0.0), []
    for value in np.asarray(list(sequence), dtype=float):
        state = np.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
