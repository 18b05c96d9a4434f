"""bptt.zero_dh0: everything vectorised after a backward loop; dh0 is np.zeros_like of the first upstream slice."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    init = np.zeros((B, W_h.shape[0])) if h0 is None else np.asarray(h0, dtype=float)
    Hs = rnn_forward(X, W_x, W_h, b, init)  # noqa: F821 -- the reference file's
    dA = np.zeros_like(Hs)
    g = 0.0
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + g) * (1 - Hs[:, t] ** 2)
        g = dA[:, t] @ W_h.T
    prev = np.concatenate([init[:, None, :], Hs[:, :T - 1]], axis=1)
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": np.zeros_like(dHs[:, 0]),
            "dW_x": np.einsum("btd,bth->dh", X, dA), "dW_h": np.einsum("bti,bth->ih", prev, dA),
            "db": np.einsum("bth->h", dA)}
