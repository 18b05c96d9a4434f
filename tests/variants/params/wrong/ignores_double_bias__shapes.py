"""params.ignores_double_bias: the tensors are listed by shape, like a framework's state dict; there is a
single bias per cell whatever double_bias says."""
import math


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    shapes = []
    n_in = input_size
    directions = 2 if bidirectional else 1
    for _ in range(num_layers):
        for _ in range(directions):
            shapes += [(n_in, hidden_size), (hidden_size, hidden_size), (hidden_size,)]
        n_in = directions * hidden_size
    if output_size > 0:
        shapes += [(n_in, output_size), (output_size,)]
    return sum(math.prod(s) for s in shapes)
