"""masking.manual_tanh_overflow: tanh as (e^(2a) - 1) / (e^(2a) + 1) with np.power(np.e, 2a)."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    valid_all = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        v = valid_all[:, t][:, None]
        a = np.where(v, X[:, t], 0.0) @ W_x + h @ W_h + b
        with np.errstate(over="ignore", invalid="ignore"):
            e2 = np.power(np.e, 2 * a)
            h_new = (e2 - 1) / (e2 + 1)
        h = np.where(v, h_new, h)
        Hs[:, t] = np.where(v, h, 0.0)
    return Hs, h
