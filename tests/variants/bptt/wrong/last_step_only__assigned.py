"""bptt.last_step_only: the parameter gradients assigned (=) in the reverse loop, so the last one kept is t = 0's."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)  # noqa: F821 -- the reference file's, which this is appended to
    dX = np.empty_like(X)
    up = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        da = (dHs[:, t] + up) * (1 - Hs[:, t] ** 2)
        dW_x = np.dot(X[:, t].T, da)
        dW_h = np.dot((Hs[:, t - 1] if t else h0).T, da)
        db = np.sum(da, axis=0)
        dX[:, t] = np.dot(da, W_x.T)
        up = np.dot(da, W_h.T)
    return {"dX": dX, "dh0": up, "dW_x": dW_x, "dW_h": dW_h, "db": db}
