"""The final state is taken at array position T-1 instead of lengths-1, so it was computed over padding."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    lengths = np.asarray(lengths)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    valid = np.arange(T)[None, :] < lengths[:, None]
    Hs[~valid] = 0.0
    return Hs, h


def last_valid_state(Hs, lengths):
    return Hs[:, -1].copy()
