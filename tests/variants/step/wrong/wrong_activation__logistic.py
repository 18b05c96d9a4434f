"""step.wrong_activation: the logistic function written out with np.exp."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    return 1.0 / (1.0 + np.exp(-z))
