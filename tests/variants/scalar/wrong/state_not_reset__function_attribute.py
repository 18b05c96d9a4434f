"""scalar.state_not_reset: the running state is stored on the function and never reset."""
import math


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    h = getattr(scalar_rnn, "h", 0.0)
    states = []
    for x in sequence:
        h = math.tanh(w_x * x + w_h * h + b)
        states.append(h)
    scalar_rnn.h = h
    return states
