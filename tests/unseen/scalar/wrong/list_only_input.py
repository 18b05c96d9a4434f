# wrong: reuses the input as the output buffer, so only a list works (any iterable is allowed)

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    states = sequence.copy()
    state = 0.0
    for i, value in enumerate(sequence):
        state = math.tanh(w_x * value + w_h * state + b)
        states[i] = state
    return states
