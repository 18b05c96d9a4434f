# mistake: birnn.unaligned_backward


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    lengths = np.asarray(lengths)
    W_x, W_h, b = bwd
    t = np.arange(T)
    valid = t[None, :] < lengths[:, None]
    src = np.where(valid, lengths[:, None] - 1 - t[None, :], 0)
    X_rev = np.where(valid[..., None], X[np.arange(B)[:, None], src], 0.0)
    A = np.einsum("btd,dh->bth", X_rev, W_x) + b
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.array(h0, dtype=float)
    back = np.zeros((B, T, W_h.shape[0]))
    for k in range(T):
        h = np.where(valid[:, k, None], np.tanh(A[:, k] + h @ W_h), h)
        back[:, k] = np.where(valid[:, k, None], h, 0.0)     # step k of the reversed pass, at k
    front, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    return np.concatenate([front, back], axis=-1)
