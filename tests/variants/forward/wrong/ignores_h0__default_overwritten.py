"""forward.ignores_h0: h0 reset to zeros by a line meant for the default only (its `if` forgotten)."""
import numpy as np


def rnn_forward(X, W_x, W_h, b, h0=None):
    h0 = np.zeros((X.shape[0], W_h.shape[1]))
    out, h = [], h0
    for x_t in np.moveaxis(X, 1, 0):
        h = np.tanh(np.dot(x_t, W_x) + np.dot(h, W_h) + b)
        out.append(h)
    return np.array(out).transpose(1, 0, 2)
