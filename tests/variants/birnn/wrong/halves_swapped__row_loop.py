"""birnn.halves_swapped: one row at a time, the backward state written into [:H] and the forward one into [H:]."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    out = np.zeros((B, T, 2 * H))
    for i in range(B):
        n = int(lengths[i])
        start = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
        Wx, Wh, bb = fwd
        h = start
        for t in range(n):
            h = np.tanh(X[i, t] @ Wx + h @ Wh + bb)
            out[i, t, H:] = h
        Wx, Wh, bb = bwd
        h = start
        for t in reversed(range(n)):
            h = np.tanh(X[i, t] @ Wx + h @ Wh + bb)
            out[i, t, :H] = h
    return out
