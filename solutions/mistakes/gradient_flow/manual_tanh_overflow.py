"""The forward pass is written inline with a hand-written tanh, (1 - e^-2z) / (1 + e^-2z):
NaN below about -355."""
import numpy as np


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(T):
            e = np.exp(-2.0 * (X[:, t] @ W_x + h @ W_h + b))
            h = (1.0 - e) / (1.0 + e)
            Hs[:, t] = h
        norms = np.zeros(T)
        dh = np.ones((B, H))
        for t in range(T - 1, -1, -1):
            norms[t] = np.sqrt(np.sum(dh * dh))
            dh = (dh * (1.0 - Hs[:, t] * Hs[:, t])) @ W_h.T
    return norms
