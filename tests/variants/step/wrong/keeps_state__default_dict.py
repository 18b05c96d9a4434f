"""step.keeps_state: a mutable default argument remembers the last state and replaces h_prev."""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b, _memory={}):
    h = _memory.get("h", h_prev)
    h = np.tanh(np.dot(x_t, W_x) + np.dot(h, W_h) + b)
    _memory["h"] = h
    return h
