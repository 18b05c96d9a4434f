"""scalar.returns_array: the states are collected in a list, then turned into an array at the end."""
import math

import numpy as np


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    h, hs = 0.0, []
    for x in sequence:
        h = math.tanh(w_x * x + w_h * h + b)
        hs.append(h)
    return np.array(hs)
