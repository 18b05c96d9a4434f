"""h0 only starts the forward direction; the backward direction always starts from zeros."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, d = X.shape
    lengths = np.asarray(lengths)
    idx = np.arange(T)[None, :]
    valid = idx < lengths[:, None]
    src = np.where(valid, lengths[:, None] - 1 - idx, idx)
    rows = np.arange(B)[:, None]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(X[rows, src], lengths, *bwd)
    return np.concatenate([H_f, H_r[rows, src]], axis=-1)
