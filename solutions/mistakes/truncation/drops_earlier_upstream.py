"""Each chunk is fed only the upstream of its last step; earlier steps of the chunk get only what
flows back from the step after them (bptt.drops_earlier_upstream per chunk)."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs, h = np.zeros((B, T, H)), h0
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db, dh0 = np.zeros_like(W_x, dtype=float), np.zeros_like(W_h, dtype=float), np.zeros(H), None
    for start in range(0, T, k):
        stop = min(start + k, T)
        dh = dHs[:, stop - 1]
        for t in reversed(range(start, stop)):
            da = dh * (1.0 - Hs[:, t] ** 2)
            h_prev = Hs[:, t - 1] if t > 0 else h0
            dW_x += X[:, t].T @ da
            dW_h += h_prev.T @ da
            db += da.sum(axis=0)
            dX[:, t] = da @ W_x.T
            dh = da @ W_h.T
        if start == 0:
            dh0 = dh
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
