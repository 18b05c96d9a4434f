"""The norms are stored in the order they are computed (steps back from the end), so the array is reversed."""
import numpy as np


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    norms = []
    g = np.ones((B, H))
    for t in reversed(range(T)):
        norms.append(np.sqrt(np.sum(g ** 2)))
        g = (g * (1 - Hs[:, t] ** 2)) @ W_h.T
    return np.array(norms)
