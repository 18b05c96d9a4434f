"""gradient_flow.reversed_order: correct norms, then flipped with [::-1] ("so that it runs backwards in time")."""
import numpy as np

from rnn_forward import rnn_forward


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    norms = np.zeros(T)
    dh = np.ones((B, H))
    for t in range(T - 1, -1, -1):
        norms[t] = np.linalg.norm(dh)
        dh = np.dot(dh * (1.0 - Hs[:, t] ** 2), W_h.T)
    return norms[::-1]
