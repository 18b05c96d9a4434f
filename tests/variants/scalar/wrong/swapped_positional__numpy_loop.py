"""scalar.swapped_positional: the recurrent weight is declared first, as in h' = tanh(w_h h + w_x x + b)."""
import numpy as np


def scalar_rnn(sequence, w_h=0.5, w_x=1.0, b=0.0):
    h = 0.0
    result = []
    for x in np.asarray(sequence, dtype=float):
        h = float(np.tanh(w_h * h + w_x * x + b))
        result.append(h)
    return result
