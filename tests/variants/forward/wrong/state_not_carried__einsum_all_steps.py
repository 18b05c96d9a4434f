"""forward.state_not_carried, all steps at once: every step starts from h0 (zeros by default)."""
import numpy as np


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    h0 = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    return np.tanh(np.einsum("btd,dh->bth", X, W_x) + (h0 @ W_h)[:, None, :] + b)
