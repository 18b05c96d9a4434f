"""truncation.ignores_k: a full backward loop over all T steps, k never read."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start)  # noqa: F821 -- the reference file's
    prev = np.concatenate([start[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros((B, T, H))
    g = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + g) * (1 - Hs[:, t] ** 2)
        g = dA[:, t] @ W_h.T
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": g, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", prev, dA), "db": dA.sum(axis=(0, 1))}
