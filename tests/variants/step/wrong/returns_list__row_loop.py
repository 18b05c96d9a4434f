"""step.returns_list: the rows are built one by one in a Python list of lists of floats."""
import math


def rnn_step(x_t, h_prev, W_x, W_h, b):
    rows = []
    for i in range(len(x_t)):
        z = x_t[i] @ W_x + h_prev[i] @ W_h + b
        rows.append([math.tanh(float(v)) for v in z])
    return rows
