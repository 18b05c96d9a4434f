# wrong: the head added inside the layer loop (once per layer)

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        total += D * (n_in * H + H * H + nb * H)
        if output_size > 0:
            total += D * H * output_size + output_size
    return total
