# wrong only when w_x == 0: `w_x or 1.0` replaces an explicit 0.0 by the default

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    w_x = w_x or 1.0            # "None means the default"; 0.0 is replaced too
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
