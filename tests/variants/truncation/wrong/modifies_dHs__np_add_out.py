"""truncation.modifies_dHs: np.add(dHs[:, t-1], carried, out=dHs[:, t-1]) inside the chunk, column form."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    hs = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        hs.append(np.tanh(np.dot(X[:, t], W_x) + np.dot(hs[-1], W_h) + b))
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    for t in range(T - 1, -1, -1):
        da = dHs[:, t] * (1 - hs[t + 1] ** 2)
        dX[:, t] = np.dot(da, W_x.T)
        dW_x += np.dot(X[:, t].T, da)
        dW_h += np.dot(hs[t].T, da)
        db += np.sum(da, axis=0)
        if t > 0 and t % k:
            np.add(dHs[:, t - 1], np.dot(da, W_h.T), out=dHs[:, t - 1])
    dh0 = np.dot(dHs[:, 0] * (1 - hs[1] ** 2), W_h.T) if T else np.zeros((B, H))
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
