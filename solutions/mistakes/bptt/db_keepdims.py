"""Exact gradients, but db is summed with keepdims=True and stays (1, H) instead of (H,)."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    grads = _backward(X, W_x, W_h, b, dHs, h0, k=max(X.shape[1], 1))
    grads["db"] = grads["db"].reshape(1, -1)
    return grads
