"""scalar.state_before_update: the previous state is kept in its own variable and that one is recorded."""
import numpy as np


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    h = 0.0
    states = []
    for x in sequence:
        prev = h
        h = float(np.tanh(w_x * x + w_h * h + b))
        states.append(prev)
    return states
