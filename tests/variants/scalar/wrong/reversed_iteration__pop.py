"""scalar.reversed_iteration: elements taken with pop() from a copy, i.e. from the end."""
import numpy as np


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    pending = list(sequence)
    h = 0.0
    states = []
    while pending:
        h = float(np.tanh(w_x * pending.pop() + w_h * h + b))
        states.append(h)
    return states
