"""params.head_ignores_directions: the stack in closed form, the head as (H + 1) * output_size."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H = hidden_size
    D = 2 if bidirectional else 1
    nb = 2 if double_bias else 1
    stack = D * (input_size * H + H * H + nb * H) + (num_layers - 1) * D * (D * H * H + H * H + nb * H)
    return stack + (H + 1) * output_size
