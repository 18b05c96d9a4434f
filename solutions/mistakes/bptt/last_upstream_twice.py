"""The last step's upstream gradient counted twice: the carried gradient starts as dHs[:, -1]
before a loop that also adds dHs[:, t] at every step (a habit of public BPTT code)."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    h = h0
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    dX = np.zeros_like(X, dtype=float)
    dW_x, dW_h, db = np.zeros_like(W_x, dtype=float), np.zeros_like(W_h, dtype=float), np.zeros(H)
    da_prev = dHs[:, -1].copy()
    for t in reversed(range(T)):
        dh = dHs[:, t] + da_prev
        da = dh * (1.0 - Hs[:, t] ** 2)
        h_prev = Hs[:, t - 1] if t > 0 else h0
        dW_x += X[:, t].T @ da
        dW_h += h_prev.T @ da
        db += da.sum(axis=0)
        dX[:, t] = da @ W_x.T
        da_prev = da @ W_h.T
    return {"dX": dX, "dh0": da_prev, "dW_x": dW_x, "dW_h": dW_h, "db": db}
