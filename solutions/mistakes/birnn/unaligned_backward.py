"""The backward states are left in reversed order: position t holds the state after t+1 reversed steps."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, d = X.shape
    lengths = np.asarray(lengths)
    X_rev = np.zeros_like(X)
    for i in range(B):
        L = int(lengths[i])
        X_rev[i, :L] = X[i, :L][::-1]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_b, _ = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)
    return np.concatenate([H_f, H_b], axis=2)
