# right: X[i, ::-1] rolled by L - T puts the reversed valid part first; undone the same way

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    T = X.shape[1]
    X_rev = np.stack([np.roll(X[i, ::-1], int(L) - T, axis=0) for i, L in enumerate(lengths)]) if len(lengths) else X
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)
    rows = []
    for i, L in enumerate(lengths):
        back = np.roll(H_r[i], T - int(L), axis=0)[::-1]      # undo: roll back, flip
        rows.append(np.where((np.arange(T) < L)[:, None], back, 0.0))
    H_b = np.array(rows).reshape(H_f.shape)
    return np.concatenate([H_f, H_b], axis=-1)
