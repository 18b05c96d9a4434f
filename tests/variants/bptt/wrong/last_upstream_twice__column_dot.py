"""bptt.last_upstream_twice in column form with np.dot: states as columns (H, B), the carried
gradient seeded with the last step's upstream before a loop that adds every step's upstream."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Wx, Wh = W_x.T, W_h.T                       # column convention: a = Wx x + Wh h + b
    h = np.zeros((H, B)) if h0 is None else np.array(h0, dtype=float).T
    states = [h]
    for t in range(T):
        h = np.tanh(np.dot(Wx, X[:, t].T) + np.dot(Wh, h) + b[:, None])
        states.append(h)
    dWx, dWh, db = np.zeros((H, d)), np.zeros((H, H)), np.zeros(H)
    dX = np.zeros((B, T, d))
    dnext = dHs[:, T - 1].T.copy()              # seeded with the last upstream ...
    for t in range(T - 1, -1, -1):
        dh = dHs[:, t].T + dnext                # ... and added again here at t = T-1
        dz = (1 - states[t + 1] ** 2) * dh
        dWx += np.dot(dz, X[:, t])
        dWh += np.dot(dz, states[t].T)
        db += dz.sum(axis=1)
        dX[:, t] = np.dot(Wx.T, dz).T
        dnext = np.dot(Wh.T, dz)
    return {"dX": dX, "dh0": dnext.T, "dW_x": dWx.T, "dW_h": dWh.T, "db": db}
