"""birnn.negative_slice_empty_row: the valid part reversed as X[i, ::-1][-L:]; for L == 0, -0 is 0: the whole row."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    W_x, W_h, b = bwd
    H = W_h.shape[0]
    forward, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    backward = np.zeros((B, T, H))
    for i in range(B):
        L = int(lengths[i])
        part = X[i, ::-1][-L:]                 # the last L of the reversed row = the valid part, reversed
        h = np.zeros(H) if h0 is None else h0[i]
        for k in range(len(part)):
            h = np.tanh(part[k] @ W_x + h @ W_h + b)
            backward[i, len(part) - 1 - k] = h
    return np.concatenate([forward, backward], axis=-1)
