"""truncation.zero_dh0: the cut is `if t % k == 0` with no `t > 0`, so step 0 is cut too and dh0 is 0."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    hs = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        hs.append(np.tanh(X[:, t] @ W_x + hs[-1] @ W_h + b))
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    dh = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        da = (dHs[:, t] + dh) * (1 - hs[t + 1] ** 2)
        dX[:, t] = da @ W_x.T
        dW_x += X[:, t].T @ da
        dW_h += hs[t].T @ da
        db += da.sum(axis=0)
        dh = da @ W_h.T
        if t % k == 0:
            dh = np.zeros((B, H))
    return {"dX": dX, "dh0": dh, "dW_x": dW_x, "dW_h": dW_h, "db": db}
