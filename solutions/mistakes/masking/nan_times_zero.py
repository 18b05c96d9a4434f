"""Padding is masked by multiplying with a 0/1 mask, so NaN in the padding leaks (NaN * 0 = NaN)."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    m = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        mt = m[:, t:t + 1]
        h_new = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        h = mt * h_new + (1.0 - mt) * h
        Hs[:, t] = mt * h
    return Hs, h
