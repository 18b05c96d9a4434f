"""Unrolling the RNN over a whole (batch-first) sequence."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    """Return all states Hs (B, T, H); Hs[:, t] is the state after X[:, t].

    X (B, T, d); h0 (B, H), None means zeros. The same W_x, W_h, b are used
    at every step and each state is carried into the next step.
    """
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        Hs[:, t] = h
    return Hs
