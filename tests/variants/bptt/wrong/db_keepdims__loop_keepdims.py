"""bptt.db_keepdims: db accumulated step by step with da.sum(axis=0, keepdims=True), so it is (1, H)."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    hs = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        hs.append(np.tanh(X[:, t] @ W_x + hs[-1] @ W_h + b))
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros((1, H))
    back = np.zeros((B, H))
    for t in reversed(range(T)):
        da = (dHs[:, t] + back) * (1 - hs[t + 1] ** 2)
        dX[:, t] = da @ W_x.T
        dW_x += X[:, t].T @ da
        dW_h += hs[t].T @ da
        db += da.sum(axis=0, keepdims=True)
        back = da @ W_h.T
    return {"dX": dX, "dh0": back, "dW_x": dW_x, "dW_h": dW_h, "db": db}
