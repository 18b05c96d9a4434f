"""The state is tanh of the running sum of the inputs, which forgets the order of the elements."""
import math


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    total = 0.0
    states = []
    for value in sequence:
        total += value
        states.append(math.tanh(w_x * total + b))
    return states
