"""The linear head is counted without its bias (H*out instead of H*out + out)."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    dirs = 2 if bidirectional else 1
    H = hidden_size
    bias = 2 * H if double_bias else H
    total = 0
    for layer in range(num_layers):
        inp = input_size if layer == 0 else H * dirs
        total += dirs * (inp * H + H * H + bias)
    if output_size > 0:
        total += H * dirs * output_size
    return total
