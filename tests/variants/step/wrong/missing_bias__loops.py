"""step.missing_bias in explicit loops with math.tanh."""
import math

import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    B, H = h_prev.shape
    out = np.zeros((B, H))
    for i in range(B):
        for j in range(H):
            z = sum(x_t[i, k] * W_x[k, j] for k in range(x_t.shape[1]))
            z += sum(h_prev[i, k] * W_h[k, j] for k in range(H))
            out[i, j] = math.tanh(z)
    return out
