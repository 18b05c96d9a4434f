"""bptt.db_keepdims: db as a row-vector product, ones (1, B*T) @ dA (B*T, H), left (1, H)."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    start = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start)  # noqa: F821 -- the reference file's
    dA = np.zeros_like(Hs)
    back = np.zeros_like(start)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + back) * (1 - Hs[:, t] ** 2)
        back = dA[:, t] @ W_h.T
    flat = dA.reshape(B * T, -1)
    prev = np.concatenate([start[:, None], Hs[:, :-1]], axis=1).reshape(B * T, -1)
    return {"dX": dA @ W_x.T, "dh0": back, "dW_x": X.reshape(B * T, -1).T @ flat, "dW_h": prev.T @ flat,
            "db": np.ones((1, B * T)) @ flat}
