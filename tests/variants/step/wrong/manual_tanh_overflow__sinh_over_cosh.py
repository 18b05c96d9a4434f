"""step.manual_tanh_overflow: np.sinh(z) / np.cosh(z), inf / inf beyond |z| ~ 710."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    pre = x_t @ W_x + h_prev @ W_h + b
    return np.sinh(pre) / np.cosh(pre)
