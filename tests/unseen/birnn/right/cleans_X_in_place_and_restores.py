# right: zeroes X's padding in place but restores it exactly (try/finally) before returning

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    mask = np.arange(X.shape[1])[None, :] < np.asarray(lengths)[:, None]
    saved = X[~mask].copy()
    X[~mask] = 0.0                            # borrowed for the computation ...
    try:
        H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
        H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    finally:
        X[~mask] = saved                      # ... and put back exactly, NaN included
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
