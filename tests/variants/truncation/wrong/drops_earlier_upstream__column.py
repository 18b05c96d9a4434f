"""truncation.drops_earlier_upstream in column form with @: in each chunk only the last step's
upstream enters; earlier steps of the chunk are fed the carried gradient alone."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    A, R = W_x.T, W_h.T
    cols = [np.zeros((H, B)) if h0 is None else np.asarray(h0, dtype=float).T]
    for t in range(T):
        cols.append(np.tanh(A @ X[:, t].T + R @ cols[-1] + b[:, None]))
    dA, dR, dbias = np.zeros((H, d)), np.zeros((H, H)), np.zeros(H)
    dX = np.zeros((B, T, d))
    dh0 = np.zeros((H, B))
    for first in range(0, T, k):
        last = min(first + k, T) - 1
        carried = dHs[:, last].T
        for t in range(last, first - 1, -1):
            dz = carried * (1 - cols[t + 1] ** 2)
            dA += dz @ X[:, t]
            dR += dz @ cols[t].T
            dbias += dz.sum(axis=1)
            dX[:, t] = (A.T @ dz).T
            carried = R.T @ dz
        if first == 0:
            dh0 = carried
    return {"dX": dX, "dh0": dh0.T, "dW_x": dA.T, "dW_h": dR.T, "db": dbias}
