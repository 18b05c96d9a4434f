"""bptt.grads_not_reset: a class attribute holds the parameter gradients, like an optimiser that is
never zeroed; a buffer is only replaced when its shape no longer fits."""
import numpy as np


class _Buffers:
    grads = {}


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    for name, shape in (("dW_x", (d, H)), ("dW_h", (H, H)), ("db", (H,))):
        if np.shape(_Buffers.grads.get(name)) != shape:
            _Buffers.grads[name] = np.zeros(shape)
    g = _Buffers.grads
    h = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        h.append(np.tanh(X[:, t] @ W_x + h[t] @ W_h + b))
    dX = np.zeros((B, T, d))
    nxt = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        da = (nxt + dHs[:, t]) * (1 - h[t + 1] ** 2)
        np.add(g["dW_x"], X[:, t].T @ da, out=g["dW_x"])
        np.add(g["dW_h"], h[t].T @ da, out=g["dW_h"])
        np.add(g["db"], da.sum(axis=0), out=g["db"])
        dX[:, t] = da @ W_x.T
        nxt = da @ W_h.T
    return {"dX": dX, "dh0": nxt, **{k: v.copy() for k, v in g.items()}}
