"""truncation.manual_tanh_overflow: states as np.sinh(a) / np.cosh(a), a chunk loop for the cut."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    hs = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        a = X[:, t] @ W_x + hs[-1] @ W_h + b
        hs.append(np.sinh(a) / np.cosh(a))
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db, dh0 = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H), np.zeros((B, H))
    for s in range(0, T, k):
        carry = np.zeros((B, H))
        for t in range(min(s + k, T) - 1, s - 1, -1):
            da = (dHs[:, t] + carry) * (1 - hs[t + 1] ** 2)
            dX[:, t] = da @ W_x.T
            dW_x += X[:, t].T @ da
            dW_h += hs[t].T @ da
            db += da.sum(axis=0)
            carry = da @ W_h.T
        if s == 0:
            dh0 = carry
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
