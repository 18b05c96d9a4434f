"""The state is recorded before it is updated, so the list is shifted by one step."""
from math import tanh


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state = 0.0
    states = []
    for value in sequence:
        states.append(state)
        state = tanh(w_x * value + w_h * state + b)
    return states
