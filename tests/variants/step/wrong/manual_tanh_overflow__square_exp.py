"""step.manual_tanh_overflow: e = exp(z), tanh = (e*e - 1) / (e*e + 1); e*e is inf above z ~ 355."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = np.dot(x_t, W_x) + np.dot(h_prev, W_h) + b
    e = np.exp(z)
    e2 = e * e
    return (e2 - 1) / (e2 + 1)
