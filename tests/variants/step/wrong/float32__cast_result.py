"""step.float32: computed in float64, then the result is cast to float32 at the end."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    h = np.tanh(np.dot(x_t, W_x) + np.dot(h_prev, W_h) + b)
    return h.astype("float32")
