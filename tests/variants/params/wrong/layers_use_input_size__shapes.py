"""params.layers_use_input_size: shapes listed per layer; every W_x is (input_size, H)."""
import math


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H = hidden_size
    cells = num_layers * (2 if bidirectional else 1)
    cell = [(input_size, H), (H, H), (H,)] + ([(H,)] if double_bias else [])
    shapes = cell * cells
    if output_size > 0:
        shapes += [((2 if bidirectional else 1) * H, output_size), (output_size,)]
    return sum(math.prod(s) for s in shapes)
