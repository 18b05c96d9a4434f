"""forward.manual_tanh_overflow: tanh as (1 - e^-2z) / (1 + e^-2z): NaN below about -355."""
import numpy as np


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(-2 * (X[:, t] @ W_x + h @ W_h + b))
            h = (1 - e) / (1 + e)
        Hs[:, t] = h
    return Hs
