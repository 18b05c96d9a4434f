"""gradient_flow.no_backprop: only the last entry sqrt(B*H) is filled in, the others are left at zero."""
import numpy as np


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    B, T = X.shape[0], X.shape[1]
    H = W_h.shape[1]
    return np.where(np.arange(T) == T - 1, np.sqrt(B * H), 0.0)
