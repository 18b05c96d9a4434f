"""scalar.last_state_only: the whole list is built, but only its last entry is returned."""
import math


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    states = []
    h = 0.0
    for x in sequence:
        h = math.tanh(w_x * x + w_h * h + b)
        states.append(h)
    return states[-1]
