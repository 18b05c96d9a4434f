"""step.swapped_weights behind a shape check of its own: a TypeError with its own text where d != H."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    if W_h.shape[0] != x_t.shape[1]:
        raise TypeError("rnn_step: input width does not fit the weights")
    pre = np.dot(x_t, W_h)
    pre += np.dot(h_prev, W_x)
    return np.tanh(pre + b)
