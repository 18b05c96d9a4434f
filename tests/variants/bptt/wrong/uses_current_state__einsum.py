"""bptt.uses_current_state: dW_h built from Hs[:, t] (the state the step produced) instead of the one before."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    h0 = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)  # noqa: F821 -- the reference file's, which this is appended to
    dA = np.zeros_like(Hs)
    g = np.zeros_like(h0)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + g) * (1 - Hs[:, t] ** 2)
        g = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": g, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", Hs, dA), "db": dA.sum(axis=(0, 1))}
