"""step.wrong_activation: a "hard" activation, the pre-activation clipped to [0, inf) by np.maximum."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = np.dot(x_t, W_x) + np.dot(h_prev, W_h) + b
    return np.maximum(z, 0.0)
