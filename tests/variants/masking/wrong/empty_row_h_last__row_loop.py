"""masking.empty_row_h_last: h_last[i] = Hs[i, lengths[i] - 1] row by row; -1 for an empty row."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    lengths = [int(n) for n in lengths]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        valid = np.array([t < n for n in lengths])[:, None]
        x = np.where(valid, X[:, t], 0.0)
        h = np.where(valid, rnn_step(x, h, W_x, W_h, b), h)
        Hs[:, t] = np.where(valid, h, 0.0)
    h_last = np.empty((B, H))
    for i, n in enumerate(lengths):
        h_last[i] = Hs[i, n - 1]
    return Hs, h_last
