"""truncation.dh0_from_last_chunk: each chunk's gradients go in a list, in time order, and dh0 is taken
from the list's last entry."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    start_state = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start_state)  # noqa: F821 -- the reference file's
    prev = np.concatenate([start_state[:, None], Hs[:, :-1]], axis=1)
    chunks = []
    for s in range(0, T, k):
        e = min(s + k, T)
        dA = np.zeros((B, e - s, W_h.shape[0]))
        g = np.zeros_like(start_state)
        for j in range(e - s - 1, -1, -1):
            dA[:, j] = (dHs[:, s + j] + g) * (1 - Hs[:, s + j] ** 2)
            g = dA[:, j] @ W_h.T
        chunks.append({"dA": dA, "leaving": g, "s": s, "e": e})
    dX = np.concatenate([c["dA"] @ W_x.T for c in chunks], axis=1)
    return {"dX": dX, "dh0": chunks[-1]["leaving"],
            "dW_x": sum(np.einsum("btd,bth->dh", X[:, c["s"]:c["e"]], c["dA"]) for c in chunks),
            "dW_h": sum(np.einsum("bti,bth->ih", prev[:, c["s"]:c["e"]], c["dA"]) for c in chunks),
            "db": sum(c["dA"].sum(axis=(0, 1)) for c in chunks)}
