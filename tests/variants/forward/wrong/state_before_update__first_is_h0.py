"""forward.state_before_update: Hs[:, 0] is set to h0 and each later slot is computed from the one before."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    Hs[:, 0] = 0.0 if h0 is None else h0
    for t in range(1, T):
        Hs[:, t] = rnn_step(X[:, t - 1], Hs[:, t - 1], W_x, W_h, b)
    return Hs
