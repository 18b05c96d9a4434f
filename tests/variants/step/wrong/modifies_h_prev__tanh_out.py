"""step.modifies_h_prev: the pre-activation is computed first, then tanh writes into h_prev (out=)."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    pre = np.dot(x_t, W_x) + np.dot(h_prev, W_h) + b
    np.tanh(pre, out=h_prev)
    return h_prev
