"""k is ignored: the full BPTT is returned, so gradients still cross the chunk boundaries."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    return rnn_backward(X, W_x, W_h, b, dHs, h0=h0)
