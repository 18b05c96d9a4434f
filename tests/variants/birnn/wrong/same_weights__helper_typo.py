"""birnn.same_weights: a helper runs one direction from a parameter tuple; it is given fwd twice."""
import numpy as np


def _run(X, lengths, params, h0):
    W_x, W_h, b = params
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.asarray(h0, dtype=float)
    out = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        live = (t < lengths)[:, None]
        h = np.where(live, np.tanh(X[:, t] @ W_x + h @ W_h + b), h)
        out[:, t] = np.where(live, h, 0.0)
    return out


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    ahead = _run(X, lengths, fwd, h0)
    behind = reverse_valid(_run(reverse_valid(X, lengths), lengths, fwd, h0), lengths)  # noqa: F821 -- the reference file's reverse_valid
    return np.concatenate([ahead, behind], axis=-1)
