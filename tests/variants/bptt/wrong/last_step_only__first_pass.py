"""bptt.last_step_only: the parameter gradients taken on the first pass of the reverse loop (t = T-1) only."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    h0 = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)  # noqa: F821 -- the reference file's, which this is appended to
    grads, up = {"dX": np.zeros_like(X)}, np.zeros_like(h0)
    for t in range(T - 1, -1, -1):
        da = (dHs[:, t] + up) * (1 - Hs[:, t] ** 2)
        if "db" not in grads:
            grads["dW_x"] = X[:, t].T @ da
            grads["dW_h"] = (Hs[:, t - 1] if t > 0 else h0).T @ da
            grads["db"] = da.sum(axis=0)
        grads["dX"][:, t] = da @ W_x.T
        up = da @ W_h.T
    grads["dh0"] = up
    return grads
