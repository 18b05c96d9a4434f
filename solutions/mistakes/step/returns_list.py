"""The new state is returned as a nested Python list instead of a NumPy array."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    h = np.tanh(x_t @ W_x + h_prev @ W_h + b)
    return h.tolist()
