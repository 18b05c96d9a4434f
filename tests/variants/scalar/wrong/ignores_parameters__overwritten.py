"""scalar.ignores_parameters: the parameters are reset to the chapter's values at the top."""
import math


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    w_x, w_h, b = 1.0, 0.5, 0.0   # values from the chapter
    states = [0.0]
    for x in sequence:
        states.append(math.tanh(w_x * x + w_h * states[-1] + b))
    return states[1:]
