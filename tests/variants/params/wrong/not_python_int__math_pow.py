"""params.not_python_int: H squared written as math.pow(H, 2), which makes the whole count a float."""
import math


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 2 if bidirectional else 1
    H = hidden_size
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        total += D * (n_in * H + math.pow(H, 2) + (2 if double_bias else 1) * H)
    if output_size > 0:
        total += D * H * output_size + output_size
    return total
