"""One step of a vanilla RNN, and the scalar RNN of chapter 14, section 3."""
import math

import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    """Return h_t = tanh(x_t @ W_x + h_prev @ W_h + b), shape (B, H).

    x_t (B, d), h_prev (B, H), W_x (d, H), W_h (H, H), b (H,).
    """
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    """Run a one-number RNN from state 0; return the state after each element."""
    state = 0.0
    states = []
    for value in sequence:
        state = math.tanh(w_x * float(value) + w_h * state + b)
        states.append(state)
    return states
