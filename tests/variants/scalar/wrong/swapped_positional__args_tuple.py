"""scalar.swapped_positional: extra positional arguments read as (w_h, w_x, b)."""
import math


def scalar_rnn(sequence, *args, **kwargs):
    params = dict(zip(("w_h", "w_x", "b"), args))
    params.update(kwargs)
    w_x, w_h, b = params.get("w_x", 1.0), params.get("w_h", 0.5), params.get("b", 0.0)
    h, out = 0.0, []
    for x in sequence:
        h = math.tanh(w_x * x + w_h * h + b)
        out.append(h)
    return out
