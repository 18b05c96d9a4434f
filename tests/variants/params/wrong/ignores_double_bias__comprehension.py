"""params.ignores_double_bias: one sum over layers, each layer and direction with one bias of H."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 2 if bidirectional else 1
    H = hidden_size
    widths = [input_size] + [D * H] * (num_layers - 1)
    rnn = sum(D * (w * H + H * H + H) for w in widths)
    head = (D * H + 1) * output_size if output_size else 0
    return rnn + head
