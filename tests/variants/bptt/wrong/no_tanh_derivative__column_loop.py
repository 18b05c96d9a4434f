"""bptt.no_tanh_derivative in column form: the upstream gradient passed on without the 1 - h^2 factor."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((H, B)) if h0 is None else np.array(h0, dtype=float).T
    cols = [h]
    for t in range(T):
        h = np.tanh(W_x.T @ X[:, t].T + W_h.T @ h + b[:, None])
        cols.append(h)
    dWx, dWh, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    dX = np.zeros((B, T, d))
    carry = np.zeros((H, B))
    for t in range(T - 1, -1, -1):
        dz = dHs[:, t].T + carry              # tanh's derivative forgotten
        dWx += X[:, t].T @ dz.T
        dWh += cols[t] @ dz.T
        db += dz.sum(axis=1)
        dX[:, t] = (W_x @ dz).T
        carry = W_h @ dz
    return {"dX": dX, "dh0": carry.T, "dW_x": dWx, "dW_h": dWh, "db": db}
