"""params.head_without_bias: shapes listed; the head has its (features, output_size) weight only."""
import math


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 2 if bidirectional else 1
    H = hidden_size
    shapes = []
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        shapes += D * [(n_in, H), (H, H)] + D * (2 if double_bias else 1) * [(H,)]
    if output_size > 0:
        shapes.append((D * H, output_size))
    return sum(math.prod(s) for s in shapes)
