"""gradient_flow.batch_mean_norm: one norm per example (a list comprehension over the rows), then their mean."""
import numpy as np

from rnn_forward import rnn_forward


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    norms = np.zeros(T)
    dh = np.ones((B, H))
    for t in reversed(range(T)):
        norms[t] = np.mean([np.linalg.norm(row) for row in dh])
        dh = (dh * (1.0 - Hs[:, t] ** 2)) @ W_h.T
    return norms
