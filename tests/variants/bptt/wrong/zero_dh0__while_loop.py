"""bptt.zero_dh0: a while loop with column-vector products; dh0 is left as the zeros it started as."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = len(b)
    hs = np.zeros((T + 1, B, H))
    if h0 is not None:
        hs[0] = h0
    for t in range(T):
        hs[t + 1] = np.tanh((W_x.T @ X[:, t].T + W_h.T @ hs[t].T).T + b)
    out = {"dX": np.zeros((B, T, d)), "dh0": np.zeros((B, H)), "dW_x": np.zeros((d, H)),
           "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    carried = np.zeros((B, H))
    t = T - 1
    while t >= 0:
        da = (dHs[:, t] + carried) * (1 - hs[t + 1] ** 2)
        out["dX"][:, t] = (W_x @ da.T).T
        out["dW_x"] += X[:, t].T @ da
        out["dW_h"] += hs[t].T @ da
        out["db"] += da.sum(axis=0)
        carried = (W_h @ da.T).T
        t -= 1
    return out
