"""The step is written inline with tanh as (1 - e^-2z) / (1 + e^-2z): right for large positive z, NaN below
about -355."""
import numpy as np


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(T):
            e = np.exp(-2.0 * (X[:, t] @ W_x + h @ W_h + b))
            h = (1.0 - e) / (1.0 + e)
            Hs[:, t] = h
    return Hs
