# right: one vectorised loop from T-1 down to 0, rows updated only where t < L

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    W_x, W_h, b = bwd
    H = W_h.shape[0]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    H_b = np.zeros((B, T, H))
    for t in range(T - 1, -1, -1):            # padded steps come first going backwards and are skipped
        valid = (t < lengths)[:, None]
        h_new = np.tanh(np.where(valid, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(valid, h_new, h)
        H_b[:, t] = np.where(valid, h, 0.0)
    return np.concatenate([H_f, H_b], axis=2)
