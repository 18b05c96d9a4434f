"""h_last is read as Hs[arange(B), lengths-1]; for a length-0 row that index is -1, a zero padded state, not h0."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    lengths = np.asarray(lengths)
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        valid = t < lengths
        x = np.where(valid[:, None], X[:, t], 0.0)
        h_new = np.tanh(x @ W_x + h @ W_h + b)
        h = np.where(valid[:, None], h_new, h)
        Hs[:, t] = np.where(valid[:, None], h, 0.0)
    h_last = Hs[np.arange(B), lengths - 1]
    return Hs, h_last
