# mistake: birnn.reversed_padding


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    # padding cleaned to zeros, then the whole row run backwards: the catalogue's feeds the
    # padding's own values in, so where it holds -1 the two differ (both wrong)
    B, T, _ = X.shape
    valid = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    X_clean = np.where(valid[..., None], X, 0.0)
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    W_x, W_h, b = bwd
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    H_b = np.zeros((B, T, W_h.shape[0]))
    for t in reversed(range(T)):
        h = np.tanh(X_clean[:, t] @ W_x + h @ W_h + b)
        H_b[:, t] = np.where(valid[:, t, None], h, 0.0)
    return np.concatenate([H_f, H_b], axis=-1)
