"""forward.last_step_reads_back: every step reads its previous state back from Hs; the last one is written
apart, from Hs[:, T - 2]."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T - 1):
        Hs[:, t] = rnn_step(X[:, t], start if t == 0 else Hs[:, t - 1], W_x, W_h, b)
    Hs[:, T - 1] = rnn_step(X[:, T - 1], Hs[:, T - 2], W_x, W_h, b)
    return Hs
