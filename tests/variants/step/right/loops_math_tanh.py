"""Correct: explicit loops, math.tanh, the bias added last."""
import math

import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    B, H = h_prev.shape
    out = np.empty((B, H))
    for i in range(B):
        for j in range(H):
            z = 0.0
            for k in range(H):
                z += h_prev[i, k] * W_h[k, j]
            for k in range(x_t.shape[1]):
                z += x_t[i, k] * W_x[k, j]
            out[i, j] = math.tanh(z + b[j])
    return out
