"""truncation.modifies_dHs: within a chunk the carried gradient is added into dHs[:, t] (g = dHs; g[:, t] += ...)."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    init = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, init)  # noqa: F821 -- the reference file's
    g = dHs
    dA = np.zeros_like(Hs)
    for s in range(0, T, k):
        e = min(s + k, T)
        for t in range(e - 1, s - 1, -1):
            if t < e - 1:
                g[:, t] += dA[:, t + 1] @ W_h.T
            dA[:, t] = g[:, t] * (1 - Hs[:, t] ** 2)
    prev = np.concatenate([init[:, None], Hs[:, :-1]], axis=1)
    return {"dX": dA @ W_x.T, "dh0": dA[:, 0] @ W_h.T, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", prev, dA), "db": dA.sum(axis=(0, 1))}
