# right: np.flip of each valid part into a fresh array, halves written into a preallocated output

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    X_rev = np.zeros_like(X)
    for i, L in enumerate(np.asarray(lengths)):
        X_rev[i, :L] = np.flip(X[i, :L], axis=0)
    out = np.empty((B, T, 2 * H))
    out[..., :H] = rnn_forward_masked(X, lengths, *fwd, h0=h0)[0]
    H_r = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)[0]
    for i, L in enumerate(np.asarray(lengths)):
        out[i, :, H:] = 0.0
        out[i, :L, H:] = H_r[i, :L][::-1]
    return out
