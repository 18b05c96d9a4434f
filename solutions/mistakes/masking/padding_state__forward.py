"""The recurrence keeps running over the (zeroed) padding, and the final state is read at position T-1."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    mask = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    X = np.where(mask[:, :, None], X, 0.0)   # padding replaced by zeros, but still fed in
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = np.where(mask[:, t, None], h, 0.0)
    return Hs, h


def last_valid_state(Hs, lengths):
    T = Hs.shape[1]
    return Hs[:, T - 1, :].copy()
