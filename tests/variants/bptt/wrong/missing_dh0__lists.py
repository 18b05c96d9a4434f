"""bptt.missing_dh0: states kept in a list, the gradient carried back is computed but never returned."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    hs = [np.zeros((B, W_h.shape[0])) if h0 is None else h0]
    for t in range(T):
        hs.append(np.tanh(X[:, t].dot(W_x) + hs[-1].dot(W_h) + b))
    grads = {"dX": np.zeros(X.shape), "dW_x": 0 * W_x, "dW_h": 0 * W_h, "db": 0 * b}
    back = 0
    for t in reversed(range(T)):
        da = (dHs[:, t] + back) * (1 - hs[t + 1] * hs[t + 1])
        grads["dX"][:, t] = da.dot(W_x.T)
        grads["dW_x"] = grads["dW_x"] + X[:, t].T.dot(da)
        grads["dW_h"] = grads["dW_h"] + hs[t].T.dot(da)
        grads["db"] = grads["db"] + da.sum(0)
        back = da.dot(W_h.T)
    return grads
