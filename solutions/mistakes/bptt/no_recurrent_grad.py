"""No gradient flows from step t+1 back to step t: each step only sees its own dHs[:, t]."""
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
    grads = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros_like(W_x),
             "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    for t in range(T):
        da = dHs[:, t] * (1.0 - Hs[:, t] ** 2)
        h_prev = Hs[:, t - 1] if t > 0 else h0
        grads["dW_x"] += X[:, t].T @ da
        grads["dW_h"] += h_prev.T @ da
        grads["db"] += da.sum(axis=0)
        grads["dX"][:, t] = da @ W_x.T
        if t == 0:
            grads["dh0"] = da @ W_h.T
    return grads
