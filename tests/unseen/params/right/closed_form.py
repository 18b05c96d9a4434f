# right: closed form

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H = hidden_size
    D = 1 + int(bool(bidirectional))
    nb = 1 + int(bool(double_bias))
    first = D * (input_size * H + H * H + nb * H)
    rest = (num_layers - 1) * D * (D * H * H + H * H + nb * H)
    head = (D * H + 1) * output_size if output_size > 0 else 0
    return first + rest + head
