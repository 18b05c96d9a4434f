"""forward.last_step_dropped: a while loop that stops one step early (t < T - 1)."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    Hs = np.zeros((B, T, W_h.shape[0]))
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    t = 0
    while t < T - 1:
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        Hs[:, t] = h
        t += 1
    return Hs
