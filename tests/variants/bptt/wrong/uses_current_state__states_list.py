"""bptt.uses_current_state with a list of states whose index is off by one (states[t + 1] for h_{t-1})."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    states = [h]
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        states.append(h)
    dX, dWx, dWh, db = np.zeros((B, T, d)), np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    up = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        da = (dHs[:, t] + up) * (1 - states[t + 1] ** 2)
        dWx += X[:, t].T @ da
        dWh += states[t + 1].T @ da          # should be states[t], the state before step t
        db += da.sum(0)
        dX[:, t] = da @ W_x.T
        up = da @ W_h.T
    return {"dX": dX, "dh0": up, "dW_x": dWx, "dW_h": dWh, "db": db}
