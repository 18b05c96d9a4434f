"""scalar.accumulates_inputs: the weighted inputs are added up; w_h never enters."""
import math


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    z = b
    states = []
    for x in sequence:
        z += w_x * x
        states.append(math.tanh(z))
    return states
