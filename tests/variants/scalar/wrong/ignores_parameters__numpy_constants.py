"""scalar.ignores_parameters: the chapter's numbers written into a NumPy loop (x + 0.5 * h)."""
import numpy as np


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    h = 0.0
    out = []
    for x in sequence:
        h = float(np.tanh(x + h / 2))
        out.append(h)
    return out
