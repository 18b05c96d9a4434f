"""scalar.state_before_update: the list of states is shifted: it starts with 0 and drops the last."""
import math


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    after = []
    h = 0.0
    for x in sequence:
        h = math.tanh(w_x * x + w_h * h + b)
        after.append(h)
    return ([0.0] + after)[:len(after)]
