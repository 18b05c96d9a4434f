"""bptt.manual_tanh_overflow: a helper tanh (e^a - e^-a) / (e^a + e^-a), used in a vectorised backward."""
import numpy as np


def _my_tanh(a):
    p, m = np.exp(a), np.exp(-a)
    return (p - m) / (p + m)


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    start = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = np.empty((B, T, W_h.shape[0]))
    h = start
    for t in range(T):
        h = Hs[:, t] = _my_tanh(X[:, t] @ W_x + h @ W_h + b)
    dA = np.zeros_like(Hs)
    back = np.zeros_like(start)
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + back) * (1 - Hs[:, t] ** 2)
        back = dA[:, t] @ W_h.T
    prev = np.concatenate([start[:, None], Hs[:, :-1]], axis=1)
    return {"dX": dA @ W_x.T, "dh0": back, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", prev, dA), "db": dA.sum(axis=(0, 1))}
