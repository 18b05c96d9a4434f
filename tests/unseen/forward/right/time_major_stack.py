# right: time-major list of rnn_step results, stacked on axis 1

from rnn_step import rnn_step
def rnn_forward(X, W_x, W_h, b, h0=None):
    h = np.zeros((X.shape[0], W_h.shape[0])) if h0 is None else h0
    states = []
    for x_t in np.transpose(X, (1, 0, 2)):
        h = rnn_step(x_t, h, W_x, W_h, b)
        states.append(h)
    return np.stack(states, axis=1)
