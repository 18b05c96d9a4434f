"""params.head_ignores_directions: shapes listed; the head's weight is (hidden_size, output_size)."""
import math


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 2 if bidirectional else 1
    shapes = []
    for layer in range(num_layers):
        width = input_size if layer == 0 else D * hidden_size
        for _ in range(D):
            shapes += [(width, hidden_size), (hidden_size, hidden_size), (hidden_size,)]
            if double_bias:
                shapes.append((hidden_size,))
    if output_size:
        shapes += [(hidden_size, output_size), (output_size,)]
    return sum(math.prod(s) for s in shapes)
