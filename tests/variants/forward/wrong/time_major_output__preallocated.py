"""forward.time_major_output: the output is allocated (T, B, H) and filled with Hs[t]."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((T, B, H))
    h = np.zeros((B, H)) if h0 is None else h0
    for t in range(T):
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        Hs[t] = h
    return Hs
