"""birnn.manual_tanh_overflow: e = exp(a), tanh = (e - 1/e) / (e + 1/e): NaN for large |a| of either sign."""
import numpy as np

from masking import sequence_mask


def _tanh(a):
    e = np.exp(a)
    return (e - 1 / e) / (e + 1 / e)


def _pass(X, lengths, W_x, W_h, b, h0):
    B, T, _ = X.shape
    mask = sequence_mask(lengths, T)
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        m = mask[:, t:t + 1]
        h = np.where(m, _tanh(X[:, t] @ W_x + h @ W_h + b), h)
        Hs[:, t] = np.where(m, h, 0.0)
    return Hs


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    back = _pass(reverse_valid(X, lengths), lengths, *bwd, h0)  # noqa: F821 -- the reference file's reverse_valid
    return np.concatenate([_pass(X, lengths, *fwd, h0), reverse_valid(back, lengths)], axis=-1)  # noqa: F821 -- the reference file's reverse_valid
