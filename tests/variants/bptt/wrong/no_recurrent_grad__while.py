"""bptt.no_recurrent_grad in a while loop: the gradient for the earlier state is computed but never added
to the next step's; dh0 is the first step's own term."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)  # noqa: F821 -- the reference file's, which this is appended to
    g = {"dX": np.zeros_like(X), "dh0": None, "dW_x": np.zeros((d, H)), "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    t = T - 1
    while t >= 0:
        da = dHs[:, t] * (1 - Hs[:, t] ** 2)
        before = Hs[:, t - 1] if t else h0
        g["dW_x"] += np.dot(X[:, t].T, da)
        g["dW_h"] += np.dot(before.T, da)
        g["db"] += da.sum(0)
        g["dX"][:, t] = np.dot(da, W_x.T)
        g["dh0"] = np.dot(da, W_h.T)
        t -= 1
    return g
