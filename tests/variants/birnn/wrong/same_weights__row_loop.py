"""birnn.same_weights: per-row loops, W_x, W_h, b unpacked once from fwd and used for both directions."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    W_x, W_h, b = fwd
    B, T, _ = X.shape
    H = W_h.shape[0]
    f = np.zeros((B, T, H))
    g = np.zeros((B, T, H))
    for i in range(B):
        L = int(lengths[i])
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(L):
            h = np.tanh(np.dot(X[i, t], W_x) + np.dot(h, W_h) + b)
            f[i, t] = h
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(L - 1, -1, -1):
            h = np.tanh(np.dot(X[i, t], W_x) + np.dot(h, W_h) + b)
            g[i, t] = h
    return np.concatenate((f, g), axis=2)
