"""truncation.boundary_off_by_one: chunks built as [0, k-1), [k-1, 2k-1), ... (the first one a step short),
each processed backwards from zero; dh0 is what leaves the chunk that starts at 0."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h_init = np.zeros((B, H)) if h0 is None else h0
    hs = [h_init]
    for t in range(T):
        hs.append(np.tanh(X[:, t] @ W_x + hs[-1] @ W_h + b))
    starts = sorted({0, *range(k - 1, T, k)})
    bounds = list(zip(starts, starts[1:] + [T]))
    grads = {"dX": np.zeros((B, T, d)), "dh0": np.zeros((B, H)), "dW_x": np.zeros((d, H)),
             "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    for lo, hi in bounds:
        g = np.zeros((B, H))
        for t in range(hi - 1, lo - 1, -1):
            da = (dHs[:, t] + g) * (1 - hs[t + 1] ** 2)
            grads["dX"][:, t] = da @ W_x.T
            grads["dW_x"] += X[:, t].T @ da
            grads["dW_h"] += hs[t].T @ da
            grads["db"] += da.sum(axis=0)
            g = da @ W_h.T
        if lo == 0 and hi > 0:
            grads["dh0"] = g
    return grads
