"""gradient_flow.reversed_order: a counter k (steps back from the end) indexes the result instead of t."""
import numpy as np


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    hs = []
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        hs.append(h)
    out = np.empty(T)
    grad = np.ones((B, H))
    k = 0
    t = T - 1
    while t >= 0:
        out[k] = np.sqrt((grad * grad).sum())
        grad = (grad * (1 - hs[t] ** 2)) @ W_h.T
        k += 1
        t -= 1
    return out
