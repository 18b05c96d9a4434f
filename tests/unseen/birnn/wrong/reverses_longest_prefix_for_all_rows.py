# wrong: every row reversed over lengths.max() steps

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    L = int(lengths.max())
    X_rev = X.copy()
    X_rev[:, :L] = X[:, :L][:, ::-1]           # one length for the whole batch
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)
    H_b = H_r.copy()
    H_b[:, :L] = H_r[:, :L][:, ::-1]
    mask = np.arange(X.shape[1])[None, :] < lengths[:, None]
    return np.concatenate([H_f, np.where(mask[..., None], H_b, 0.0)], axis=-1)
