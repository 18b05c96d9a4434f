"""truncation.last_upstream_twice: chunks walked with einsum; each chunk's carried gradient is
initialised to np.copy(dHs[:, end-1]) before a loop that adds dHs[:, t] at every step."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    init = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, init)  # noqa: F821 -- the reference file's
    dA = np.zeros_like(Hs)
    dh0 = np.zeros_like(init)
    for s in range(0, T, k):
        e = min(T, s + k)
        carried = np.copy(dHs[:, e - 1])
        for t in range(e - 1, s - 1, -1):
            dA[:, t] = (carried + dHs[:, t]) * (1 - Hs[:, t] ** 2)
            carried = np.einsum("bh,kh->bk", dA[:, t], W_h)
        if s == 0:
            dh0 = carried
    prev = np.concatenate([init[:, None], Hs[:, :-1]], axis=1)
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": dh0, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", prev, dA), "db": np.einsum("bth->h", dA)}
