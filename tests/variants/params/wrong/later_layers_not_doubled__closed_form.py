"""params.later_layers_not_doubled: first layer plus (L - 1) identical later layers of H inputs."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D = hidden_size, (2 if bidirectional else 1)
    b = H * (1 + bool(double_bias))
    first = D * (input_size * H + H * H + b)
    later = (num_layers - 1) * D * (H * H + H * H + b)
    head = (D * H * output_size + output_size) if output_size > 0 else 0
    return first + later + head
