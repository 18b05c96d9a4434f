"""truncation.boundary_off_by_one: vectorised parameter sums; the cut tested as t % k == k - 1."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    init = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, init)  # noqa: F821 -- the reference file's
    dA = np.zeros_like(Hs)
    carry = np.zeros_like(init)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + carry) * (1 - Hs[:, t] ** 2)
        carry = np.zeros_like(init) if t % k == k - 1 else dA[:, t] @ W_h.T
    prev = np.concatenate([init[:, None], Hs[:, :-1]], axis=1)
    return {"dX": dA @ W_x.T, "dh0": carry, "dW_x": np.tensordot(X, dA, axes=([0, 1], [0, 1])),
            "dW_h": np.tensordot(prev, dA, axes=([0, 1], [0, 1])), "db": dA.sum(axis=(0, 1))}
