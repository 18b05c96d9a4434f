"""masking.nan_times_zero: the update is written h += m * (h_new - h), and the states masked as m * h."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    m = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(np.float64)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h_new = rnn_step(X[:, t], h, W_x, W_h, b)
        h = h + m[:, t, None] * (h_new - h)
        Hs[:, t] = m[:, t, None] * h
    return Hs, h
