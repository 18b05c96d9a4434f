"""tanh written by hand as (e^z - e^-z) / (e^z + e^-z): inf/inf = NaN beyond about ±710, on both sides."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    with np.errstate(over="ignore", invalid="ignore"):
        return (np.exp(z) - np.exp(-z)) / (np.exp(z) + np.exp(-z))
