# mistake: birnn.unaligned_backward


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    W_x, W_h, b = bwd
    H = W_h.shape[0]
    out_b = np.zeros((B, T, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
        L = int(lengths[i])
        for k, t in enumerate(range(L - 1, -1, -1)):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            out_b[i, k] = h                   # stored in the order computed
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    return np.dstack([H_f, out_b])
