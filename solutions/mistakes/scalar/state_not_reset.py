"""The state lives at module level and is not reset to 0 between calls."""
from math import tanh

state = 0.0


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    global state
    states = []
    for value in sequence:
        state = tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
