"""The weights are swapped: x_t @ W_h + h_prev @ W_x (only shape-valid when d == H)."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(x_t @ W_h + h_prev @ W_x + b)
