"""scalar.state_not_reset: a mutable default list carries the state from call to call."""
import numpy as np


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0, _h=[0.0]):
    states = []
    for x in sequence:
        _h[0] = float(np.tanh(w_x * x + w_h * _h[0] + b))
        states.append(_h[0])
    return states
