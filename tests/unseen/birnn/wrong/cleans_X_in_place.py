# wrong: cleans the padding of the caller's X in place (X[~mask] = 0)

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    mask = np.arange(X.shape[1])[None, :] < np.asarray(lengths)[:, None]
    X[~mask] = 0.0
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
