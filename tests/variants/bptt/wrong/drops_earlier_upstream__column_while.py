"""bptt.drops_earlier_upstream in column form with a while loop and @: dHs enters only at the
last step; earlier steps are fed the carried gradient alone."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    A, R = W_x.T, W_h.T
    cols = [np.zeros((H, B)) if h0 is None else np.asarray(h0, dtype=float).T]
    for t in range(T):
        cols.append(np.tanh(A @ X[:, t].T + R @ cols[-1] + b.reshape(H, 1)))
    dA, dR, dbias = np.zeros((H, d)), np.zeros((H, H)), np.zeros((H, 1))
    dXcols = np.zeros((T, d, B))
    carried = dHs[:, T - 1].T
    t = T - 1
    while t >= 0:
        dz = carried * (1 - cols[t + 1] ** 2)
        dA = dA + dz @ X[:, t]
        dR = dR + dz @ cols[t].T
        dbias = dbias + dz.sum(axis=1, keepdims=True)
        dXcols[t] = A.T @ dz
        carried = R.T @ dz
        t = t - 1
    return {"dX": dXcols.transpose(2, 0, 1), "dh0": carried.T, "dW_x": dA.T, "dW_h": dR.T,
            "db": dbias.ravel()}
