"""truncation.ignores_k: the chunk loop is there, but it resets a name (dh) the steps never read; the
gradient actually carried (back) crosses every boundary."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    hs = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        hs.append(np.tanh(X[:, t] @ W_x + hs[t] @ W_h + b))
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    back = np.zeros((B, H))
    for end in range(T, 0, -k):
        begin = max(end - k, 0)
        dh = np.zeros((B, H))   # noqa: F841 -- meant to cut the gradient here
        for t in range(end - 1, begin - 1, -1):
            da = (dHs[:, t] + back) * (1 - hs[t + 1] ** 2)
            dX[:, t] = da @ W_x.T
            dW_x += X[:, t].T @ da
            dW_h += hs[t].T @ da
            db += da.sum(axis=0)
            back = da @ W_h.T
    return {"dX": dX, "dh0": back, "dW_x": dW_x, "dW_h": dW_h, "db": db}
