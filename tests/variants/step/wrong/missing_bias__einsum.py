"""step.missing_bias with einsum, the two products stacked."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.einsum("bi,ih->bh", np.hstack([x_t, h_prev]), np.vstack([W_x, W_h])))
