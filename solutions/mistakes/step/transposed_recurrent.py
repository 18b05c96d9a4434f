"""The recurrent weight is transposed: h_prev @ W_h.T."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.dot(x_t, W_x) + np.dot(h_prev, W_h.T) + b)
