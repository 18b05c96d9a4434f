"""birnn.cleans_input_in_place: X *= mask (B, T, 1) before the passes, which zeroes the caller's
padding where it is finite (a NaN padding stays NaN: 0 * NaN)."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    mask = (np.arange(T)[None, :] < np.asarray(lengths)[:, None])[:, :, None]
    X *= mask
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
