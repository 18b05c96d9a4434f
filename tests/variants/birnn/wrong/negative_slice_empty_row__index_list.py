"""birnn.negative_slice_empty_row: the time indices list(range(T))[L-1::-1]; for L == 0 that is every index."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = bwd[1].shape[0]
    out_b = np.zeros((B, T, H))
    for i in range(B):
        steps = list(range(T))[int(lengths[i]) - 1::-1]
        h = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
        for t in steps:
            h = np.tanh(X[i, t] @ bwd[0] + h @ bwd[1] + bwd[2])
            out_b[i, t] = h
    out_f = rnn_forward_masked(X, lengths, *fwd, h0=h0)[0]
    return np.concatenate([out_f, out_b], axis=-1)
