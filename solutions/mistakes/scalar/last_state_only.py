"""Only the final state is returned, not the state after each element."""
from math import tanh


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state = 0.0
    for value in sequence:
        state = tanh(w_x * value + w_h * state + b)
    return state
