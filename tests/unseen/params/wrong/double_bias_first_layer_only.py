# wrong: the second bias vector only on layer 0

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs = hidden_size, 2 if bidirectional else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else H * dirs
        nb = 2 if (double_bias and layer == 0) else 1
        total += dirs * (n_in * H + H * H + nb * H)
    if output_size > 0:
        total += H * dirs * output_size + output_size
    return total
