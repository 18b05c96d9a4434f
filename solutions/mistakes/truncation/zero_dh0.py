"""dh0 is always zero, as if h0 were cut off like every other chunk boundary."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    h = h0
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    out = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros_like(W_x),
           "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    for start in range(0, T, k):
        stop = min(start + k, T)
        dh = np.zeros((B, H))
        for t in range(stop - 1, start - 1, -1):
            da = (dHs[:, t] + dh) * (1.0 - Hs[:, t] ** 2)
            h_prev = Hs[:, t - 1] if t > 0 else h0
            out["dW_x"] += X[:, t].T @ da
            out["dW_h"] += h_prev.T @ da
            out["db"] += da.sum(axis=0)
            out["dX"][:, t] = da @ W_x.T
            dh = da @ W_h.T
    return out
