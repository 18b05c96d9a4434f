"""Reference solution of the gates course: one LSTM step with packed gate weights."""

import numpy as np


def _sigmoid(z):
    """1 / (1 + exp(-z)) without overflow for large |z|."""
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def lstm_step(x, h_prev, c_prev, W, U, b, forget_bias=0.0):
    H = h_prev.shape[1]
    z = x @ W + h_prev @ U + b
    i = _sigmoid(z[:, :H])
    f = _sigmoid(z[:, H:2 * H] + forget_bias)
    g = np.tanh(z[:, 2 * H:3 * H])
    o = _sigmoid(z[:, 3 * H:])
    c_t = f * c_prev + i * g
    h_t = o * np.tanh(c_t)
    return h_t, c_t
