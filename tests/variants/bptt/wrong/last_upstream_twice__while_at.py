"""bptt.last_upstream_twice with a while loop and @: the running gradient starts as dHs[:, T-1]."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    n, steps, _ = X.shape
    hidden = W_h.shape[1]
    prev = np.zeros((n, hidden)) if h0 is None else h0
    hs = []
    for x in np.swapaxes(X, 0, 1):
        prev = np.tanh(x @ W_x + prev @ W_h + b)
        hs.append(prev)
    start = np.zeros((n, hidden)) if h0 is None else h0
    g = {"dX": np.zeros(X.shape), "dW_x": np.zeros(W_x.shape), "dW_h": np.zeros(W_h.shape),
         "db": np.zeros(b.shape)}
    running = dHs[:, steps - 1]
    t = steps - 1
    while t >= 0:
        da = (running + dHs[:, t]) * (1 - hs[t] * hs[t])
        before = hs[t - 1] if t else start
        g["dW_x"] = g["dW_x"] + X[:, t].T @ da
        g["dW_h"] = g["dW_h"] + before.T @ da
        g["db"] = g["db"] + np.sum(da, axis=0)
        g["dX"][:, t, :] = da @ W_x.T
        running = da @ W_h.T
        t -= 1
    g["dh0"] = running
    return g
