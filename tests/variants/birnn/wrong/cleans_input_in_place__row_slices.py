"""birnn.cleans_input_in_place: X[i, L:] = 0 for every row before the passes (X is the caller's array)."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    for i, L in enumerate(lengths):
        X[i, int(L):] = 0
    H = fwd[1].shape[0]
    out = np.zeros((B, T, 2 * H))
    for i in range(B):
        L = int(lengths[i])
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(L):
            h = np.tanh(X[i, t] @ fwd[0] + h @ fwd[1] + fwd[2])
            out[i, t, :H] = h
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(L - 1, -1, -1):
            h = np.tanh(X[i, t] @ bwd[0] + h @ bwd[1] + bwd[2])
            out[i, t, H:] = h
    return out
