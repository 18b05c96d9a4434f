"""The states are returned as a NumPy array instead of a list of floats."""
import numpy as np


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    states = np.zeros(len(sequence))
    state = 0.0
    for i, value in enumerate(sequence):
        state = np.tanh(w_x * value + w_h * state + b)
        states[i] = state
    return states
