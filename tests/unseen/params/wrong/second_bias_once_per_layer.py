# wrong: with two directions, the second bias is counted once per layer instead of per direction

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs = hidden_size, 2 if bidirectional else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else H * dirs
        total += dirs * (n_in * H + H * H + H) + (H if double_bias else 0)
    if output_size > 0:
        total += H * dirs * output_size + output_size
    return total
