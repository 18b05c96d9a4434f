"""bptt.drops_earlier_upstream with `for t in reversed(range(T))` and np.dot: each step gets only
what flows back from the step after it; the loop starts from the last step's upstream."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, D = X.shape
    H = W_x.shape[1]
    h_init = np.zeros((B, H)) if h0 is None else h0.astype(float)
    cache = []
    h = h_init
    for t in range(T):
        h_new = np.tanh(np.dot(X[:, t, :], W_x) + np.dot(h, W_h) + b)
        cache.append((X[:, t, :], h, h_new))
        h = h_new
    dX = np.zeros((B, T, D))
    dW_x = np.zeros((D, H))
    dW_h = np.zeros((H, H))
    db = np.zeros((H,))
    dprev = dHs[:, -1, :]
    for t in reversed(range(T)):
        x, h_prev, h_next = cache[t]
        dtanh = (1.0 - np.square(h_next)) * dprev
        dX[:, t, :] = np.dot(dtanh, W_x.T)
        dW_x += np.dot(x.T, dtanh)
        dW_h += np.dot(h_prev.T, dtanh)
        db += np.sum(dtanh, axis=0)
        dprev = np.dot(dtanh, W_h.T)
    return {"dX": dX, "dh0": dprev, "dW_x": dW_x, "dW_h": dW_h, "db": db}
