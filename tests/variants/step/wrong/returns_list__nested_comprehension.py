"""step.returns_list: the whole step written as nested comprehensions over Python floats."""
import math


def rnn_step(x_t, h_prev, W_x, W_h, b):
    d, H = len(W_x), len(W_h)
    return [[math.tanh(sum(x[k] * W_x[k][j] for k in range(d)) + sum(h[k] * W_h[k][j] for k in range(H)) + b[j])
             for j in range(H)] for x, h in zip(x_t, h_prev)]
