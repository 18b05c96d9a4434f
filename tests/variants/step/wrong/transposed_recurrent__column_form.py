"""step.transposed_recurrent: the chapter's column form W_h h, written with row vectors (h @ W_h.T)."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh((W_x.T @ x_t.T).T + (W_h @ h_prev.T).T + b)
