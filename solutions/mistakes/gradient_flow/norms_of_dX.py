"""The norms of dL/dX[:, t] (the input gradients) are returned instead of dL/dHs[:, t]."""
import numpy as np


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = []
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs.append(h)
    norms = np.zeros(T)
    dh = np.ones((B, H))
    for t in range(T - 1, -1, -1):
        da = dh * (1 - Hs[t] ** 2)
        norms[t] = np.linalg.norm(da @ W_x.T)
        dh = da @ W_h.T
    return norms
