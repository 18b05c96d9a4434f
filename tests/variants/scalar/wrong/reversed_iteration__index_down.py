"""scalar.reversed_iteration: an index loop that counts down from the last element."""
import math


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    h = 0.0
    out = []
    for i in range(len(sequence) - 1, -1, -1):
        h = math.tanh(w_x * sequence[i] + w_h * h + b)
        out.append(h)
    return out
