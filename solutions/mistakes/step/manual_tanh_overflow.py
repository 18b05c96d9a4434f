"""tanh written by hand as (e^2z - 1) / (e^2z + 1), which overflows to inf/inf = NaN for large pre-activations."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(2.0 * z)
        return (e - 1.0) / (e + 1.0)
