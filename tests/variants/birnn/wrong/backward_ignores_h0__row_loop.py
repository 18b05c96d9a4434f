"""birnn.backward_ignores_h0: per-row loops; the backward state always starts from np.zeros(H)."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    out = np.zeros((B, T, 2 * H))
    for i in range(B):
        L = int(lengths[i])
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        for t in range(L):
            h = np.tanh(X[i, t] @ fwd[0] + h @ fwd[1] + fwd[2])
            out[i, t, :H] = h
        h = np.zeros(H)
        for t in range(L - 1, -1, -1):
            h = np.tanh(X[i, t] @ bwd[0] + h @ bwd[1] + bwd[2])
            out[i, t, H:] = h
    return out
