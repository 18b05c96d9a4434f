"""step.keeps_state: a small class instance holds the running state; rnn_step is its bound method."""
import numpy as np


class _Cell:
    def __init__(self):
        self.h = None

    def step(self, x_t, h_prev, W_x, W_h, b):
        if self.h is None:
            self.h = h_prev.copy()
        self.h = np.tanh(x_t @ W_x + self.h @ W_h + b)
        return self.h


_cell = _Cell()


def rnn_step(x_t, h_prev, W_x, W_h, b):
    return _cell.step(x_t, h_prev, W_x, W_h, b)
