"""truncation.drops_earlier_upstream: one backward time loop; a step that ends a chunk takes dHs[:, t],
every other step only what its successor passes back."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    hs = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        hs.append(np.tanh(X[:, t] @ W_x + hs[-1] @ W_h + b))
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    passed = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        ends_chunk = t == T - 1 or (t + 1) % k == 0
        g = dHs[:, t] if ends_chunk else passed
        da = g * (1 - hs[t + 1] ** 2)
        dX[:, t] = da @ W_x.T
        dW_x += X[:, t].T @ da
        dW_h += hs[t].T @ da
        db += da.sum(axis=0)
        passed = da @ W_h.T
    return {"dX": dX, "dh0": passed, "dW_x": dW_x, "dW_h": dW_h, "db": db}
