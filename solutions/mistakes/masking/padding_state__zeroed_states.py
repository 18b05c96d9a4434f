"""The states are right and zeroed at the padding, but the final state is read at position T-1,
which for every shorter row is a padded (zero) position."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    lengths = np.asarray(lengths)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        real = (t < lengths)[:, None]
        h_new = np.tanh(np.where(real, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(real, h_new, h)
        Hs[:, t] = h * real
    return Hs, Hs[:, T - 1].copy()


def last_valid_state(Hs, lengths):
    return Hs[:, Hs.shape[1] - 1].copy()
