"""params.ignores_bidirectional: a closed form with no direction factor at all."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H = hidden_size
    bias = (1 + (1 if double_bias else 0)) * H
    layers = (input_size * H + H * H + bias) + (num_layers - 1) * (2 * H * H + bias)
    return layers + (H * output_size + output_size if output_size > 0 else 0)
