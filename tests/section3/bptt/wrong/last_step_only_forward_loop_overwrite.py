# mistake: bptt.last_step_only


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start)
    dA = np.zeros((B, T, H))
    g = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + g) * (1.0 - np.square(Hs[:, t]))
        g = np.einsum("bh,kh->bk", dA[:, t], W_h)
    for t in range(T):                        # = instead of +=: step T-1 is what is left
        h_prev = start if t == 0 else Hs[:, t - 1]
        dW_x = np.einsum("bd,bh->dh", X[:, t], dA[:, t])
        dW_h = np.einsum("bi,bh->ih", h_prev, dA[:, t])
        db = np.einsum("bh->h", dA[:, t])
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": g, "dW_x": dW_x, "dW_h": dW_h, "db": db}
