"""truncation.resets_state: the forward loop itself sets h to zeros at every chunk start after the first;
the backward then uses those states."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    prevs, states = [], []
    for t in range(T):
        if t > 0 and t % k == 0:
            h = np.zeros((B, H))
        prevs.append(h)
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        states.append(h)
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    carry = np.zeros((B, H))
    for t in reversed(range(T)):
        da = (dHs[:, t] + carry) * (1 - states[t] ** 2)
        dX[:, t] = da @ W_x.T
        dW_x += X[:, t].T @ da
        dW_h += prevs[t].T @ da
        db += da.sum(axis=0)
        carry = da @ W_h.T if t % k else np.zeros((B, H)) if t else da @ W_h.T
    return {"dX": dX, "dh0": carry, "dW_x": dW_x, "dW_h": dW_h, "db": db}
