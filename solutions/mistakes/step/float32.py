"""The computation is done in float32, so the result is not float64."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    x_t, h_prev = x_t.astype(np.float32), h_prev.astype(np.float32)
    W_x, W_h, b = W_x.astype(np.float32), W_h.astype(np.float32), b.astype(np.float32)
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
