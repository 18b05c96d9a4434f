"""params.not_python_int: shapes listed and counted with np.prod, which gives a numpy integer."""
import numpy as np


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 2 if bidirectional else 1
    H = hidden_size
    shapes = []
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        for _ in range(D):
            shapes += [(n_in, H), (H, H), (H,)] + ([(H,)] if double_bias else [])
    if output_size > 0:
        shapes += [(D * H, output_size), (output_size,)]
    return sum(np.prod(s) for s in shapes)
