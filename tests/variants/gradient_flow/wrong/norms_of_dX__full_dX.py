"""gradient_flow.norms_of_dX: the whole dX array is built by backprop, then one norm per time step."""
import numpy as np


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    states = np.zeros((B, T + 1, H))
    if h0 is not None:
        states[:, 0] = h0
    for t in range(T):
        states[:, t + 1] = np.tanh(np.dot(X[:, t], W_x) + np.dot(states[:, t], W_h) + b)
    dX = np.zeros_like(X, dtype=float)
    dh_next = np.ones((B, H))
    for t in reversed(range(T)):
        dz = dh_next * (1 - states[:, t + 1] ** 2)
        dX[:, t] = np.dot(dz, W_x.T)
        dh_next = np.dot(dz, W_h.T)
    return np.linalg.norm(dX, axis=(0, 2))
