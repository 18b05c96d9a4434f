"""The first element is handled separately via sequence[0], which fails on an empty sequence."""
from math import tanh


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state = tanh(w_x * sequence[0] + b)
    states = [state]
    for value in sequence[1:]:
        state = tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
