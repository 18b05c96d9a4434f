# mistake: step.swapped_weights
# The catalogued x_t @ W_h raises numpy's ValueError whenever d != H; only the square cases
# show values.


def rnn_step(x_t, h_prev, W_x, W_h, b):
    # np.dot (its own ValueError when d != H) and in-place updates of a new array
    a = np.dot(h_prev, W_x)
    a += np.dot(x_t, W_h)
    a += b
    np.tanh(a, out=a)
    return a


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    # the file's other function, rewritten and right
    states, state = [], 0.0
    for value in sequence:
        state = float(np.tanh(w_x * value + w_h * state + b))
        states.append(state)
    return states
