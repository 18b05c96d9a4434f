"""step.float32: every argument goes through a helper that makes it single precision, then np.dot."""
import numpy as np


def _single(a):
    return np.array(a, dtype=np.single)


def rnn_step(x_t, h_prev, W_x, W_h, b):
    x_t, h_prev, W_x, W_h, b = map(_single, (x_t, h_prev, W_x, W_h, b))
    return np.tanh(np.dot(x_t, W_x) + np.dot(h_prev, W_h) + b)
