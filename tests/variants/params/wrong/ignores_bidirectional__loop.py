"""params.ignores_bidirectional: the flag is accepted but the count is for one direction everywhere."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    total = 0
    n_in = input_size
    for _ in range(num_layers):
        total += n_in * hidden_size + hidden_size * hidden_size
        total += 2 * hidden_size if double_bias else hidden_size
        n_in = hidden_size
    if output_size:
        total += hidden_size * output_size + output_size
    return total
