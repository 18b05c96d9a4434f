"""params.later_layers_not_doubled: layers after the first read hidden_size features (one direction's)."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    dirs = 2 if bidirectional else 1
    n_bias = 2 if double_bias else 1
    total = 0
    n_in = input_size
    for _ in range(num_layers):
        total += dirs * (n_in * hidden_size + hidden_size ** 2 + n_bias * hidden_size)
        n_in = hidden_size
    if output_size > 0:
        total += dirs * hidden_size * output_size + output_size
    return total
