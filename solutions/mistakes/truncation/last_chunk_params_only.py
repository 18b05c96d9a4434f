"""The parameter gradients are overwritten per chunk, so only one chunk's contribution is kept."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    if h0 is None:
        h0 = np.zeros((B, H))
    Hs = np.zeros((B, T, H))
    h = h0
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    result = {"dX": np.zeros_like(X)}
    for start in range(0, T, k):
        stop = min(start + k, T)
        dA = np.zeros((B, stop - start, H))
        dh = np.zeros((B, H))
        for t in range(stop - 1, start - 1, -1):
            dA[:, t - start] = (dHs[:, t] + dh) * (1.0 - Hs[:, t] ** 2)
            dh = dA[:, t - start] @ W_h.T
        result["dX"][:, start:stop] = np.einsum("bth,dh->btd", dA, W_x)
        result["dW_x"] = np.einsum("btd,bth->dh", X[:, start:stop], dA)
        result["dW_h"] = np.einsum("bti,bth->ih", H_prev[:, start:stop], dA)
        result["db"] = dA.sum(axis=(0, 1))
        if start == 0:
            result["dh0"] = dh
    return result
