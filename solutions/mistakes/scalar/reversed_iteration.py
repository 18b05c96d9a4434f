"""The sequence is consumed from its end, so the order is reversed."""
from math import tanh


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state = 0.0
    states = []
    for value in reversed(list(sequence)):
        state = tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
