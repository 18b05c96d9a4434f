"""The two halves are concatenated in the wrong order: backward states first, forward states second."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, d = X.shape
    X_rev = np.zeros_like(X)
    for i in range(B):
        L = int(lengths[i])
        X_rev[i, :L] = X[i, :L][::-1]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)
    H_b = np.zeros_like(H_r)
    for i in range(B):
        L = int(lengths[i])
        H_b[i, :L] = H_r[i, :L][::-1]
    return np.concatenate([H_b, H_f], axis=-1)
