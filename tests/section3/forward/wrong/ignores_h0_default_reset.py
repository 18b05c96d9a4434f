# mistake: forward.ignores_h0


def rnn_forward(X, W_x, W_h, b, h0=None, reset=True):
    # the mistake only in a default argument: the state is reset unless reset=False
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if (reset or h0 is None) else h0
    Hs = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        Hs[:, t] = h
    return Hs
