"""step.swapped_weights with einsum (issue 36): where d == 1, einsum broadcasts the size-1 axis and returns
a value where the catalogued x_t @ W_h raises; where d == H it is the mistake value for value."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.einsum("bd,dh->bh", x_t, W_h) + np.einsum("bk,kh->bh", h_prev, W_x) + b)
