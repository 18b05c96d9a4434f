# right: one row at a time, explicit loops in both directions

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    out = np.zeros((B, T, 2 * H))
    for i in range(B):
        L = int(lengths[i])
        start = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
        W_x, W_h, b = fwd
        h = start
        for t in range(L):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            out[i, t, :H] = h
        W_x, W_h, b = bwd
        h = start
        for t in range(L - 1, -1, -1):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            out[i, t, H:] = h
    return out
