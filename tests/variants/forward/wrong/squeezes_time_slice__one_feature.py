"""forward.squeezes_time_slice: with one feature, the student takes X[:, t, 0], a 1-D column."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        x_t = X[:, t, 0] if d == 1 else X[:, t]
        h = rnn_step(x_t, h, W_x, W_h, b)
        Hs[:, t] = h
    return Hs
