"""truncation.zero_dh0: pre-activation gradients chunk by chunk, parameters by einsum; dh0 = zeros_like(h0)."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    h_start = np.zeros((B, W_h.shape[0])) if h0 is None else np.asarray(h0, dtype=float)
    Hs = rnn_forward(X, W_x, W_h, b, h_start)  # noqa: F821 -- the reference file's
    dA = np.zeros_like(Hs)
    for s in range(0, T, k):
        nxt = 0.0
        for t in range(min(s + k, T) - 1, s - 1, -1):
            dA[:, t] = (dHs[:, t] + nxt) * (1 - Hs[:, t] ** 2)
            nxt = np.einsum("bh,kh->bk", dA[:, t], W_h)
    prev = np.concatenate([h_start[:, None], Hs[:, :-1]], axis=1)
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": np.zeros_like(h_start),
            "dW_x": np.einsum("btd,bth->dh", X, dA), "dW_h": np.einsum("bti,bth->ih", prev, dA),
            "db": np.einsum("bth->h", dA)}
