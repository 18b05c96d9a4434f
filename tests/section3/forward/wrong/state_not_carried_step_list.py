# mistake: forward.state_not_carried


def rnn_forward(X, W_x, W_h, b, h0=None):
    h = np.zeros((X.shape[0], W_h.shape[0])) if h0 is None else h0
    states = []
    for t in range(X.shape[1]):
        h_t = rnn_step(X[:, t], h, W_x, W_h, b)     # h is never updated
        states.append(h_t)
    return np.stack(states, axis=1)
