"""gradient_flow.batch_mean_norm: sqrt of the sum of squares over H for each example, averaged over B."""
import numpy as np


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0.copy()
    Hs = np.empty((T, B, H))
    for t in range(T):
        h = np.tanh(np.einsum("bd,dh->bh", X[:, t], W_x) + np.einsum("bk,kh->bh", h, W_h) + b)
        Hs[t] = h
    norms = np.empty(T)
    delta = np.ones((B, H))
    for t in range(T - 1, -1, -1):
        norms[t] = np.sqrt((delta ** 2).sum(axis=1)).sum() / B
        delta = (delta * (1 - Hs[t] ** 2)) @ W_h.T
    return norms
