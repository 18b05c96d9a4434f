"""The parameters are declared in another order (w_h before w_x), so positional calls mix them up."""
from math import tanh


def scalar_rnn(sequence, w_h=0.5, w_x=1.0, b=0.0):
    state = 0.0
    states = []
    for value in sequence:
        state = tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
