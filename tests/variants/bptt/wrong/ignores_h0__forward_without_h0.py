"""bptt.ignores_h0: rnn_forward called without h0 and a zero state used as h_(-1); dh0 still computed."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    Hs = rnn_forward(X, W_x, W_h, b)  # noqa: F821 -- the reference file's; h0 forgotten
    prev = np.zeros_like(Hs)
    prev[:, 1:] = Hs[:, :-1]
    dA = np.zeros_like(Hs)
    dh = np.zeros((B, W_h.shape[0]))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dh + dHs[:, t]) * (1 - Hs[:, t] * Hs[:, t])
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.tensordot(X, dA, axes=([0, 1], [0, 1])),
            "dW_h": np.tensordot(prev, dA, axes=([0, 1], [0, 1])), "db": dA.sum(axis=(0, 1))}
