"""masking.manual_tanh_overflow: tanh as np.sinh(a) / np.cosh(a): NaN beyond |a| ~ 710, both signs."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    mask = sequence_mask(lengths, T)  # noqa: F821 -- the reference file's
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        v = mask[:, t, None]
        a = np.where(v, X[:, t], 0.0) @ W_x + h @ W_h + b
        with np.errstate(over="ignore", invalid="ignore"):
            new = np.sinh(a) / np.cosh(a)
        h = np.where(v, new, h)
        Hs[:, t] = np.where(v, new, 0.0)
    return Hs, h
