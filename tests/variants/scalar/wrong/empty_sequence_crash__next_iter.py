"""scalar.empty_sequence_crash: the first element is taken with next(iter(...)): StopIteration on []."""
import math


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    it = iter(sequence)
    h = math.tanh(w_x * next(it) + b)
    out = [h]
    for x in it:
        h = math.tanh(w_x * x + w_h * h + b)
        out.append(h)
    return out
