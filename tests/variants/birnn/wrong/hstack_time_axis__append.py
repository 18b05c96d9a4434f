"""birnn.hstack_time_axis: np.append(a, b, axis=1) on (B, T, H) arrays, which lengthens the time axis."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    f = np.zeros((B, T, H))
    r = np.zeros((B, T, H))
    for i in range(B):
        L = int(lengths[i])
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(L):
            h = np.tanh(X[i, t] @ fwd[0] + h @ fwd[1] + fwd[2])
            f[i, t] = h
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(L - 1, -1, -1):
            h = np.tanh(X[i, t] @ bwd[0] + h @ bwd[1] + bwd[2])
            r[i, t] = h
    return np.append(f, r, axis=1)
