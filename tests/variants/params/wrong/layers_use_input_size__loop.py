"""params.layers_use_input_size: a loop over the layers that always uses input_size for W_x."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    dirs = 1 + int(bidirectional)
    total = 0
    for _ in range(num_layers):
        for _ in range(dirs):
            total += input_size * hidden_size           # W_x
            total += hidden_size * hidden_size          # W_h
            total += hidden_size * (2 if double_bias else 1)
    if output_size:
        total += dirs * hidden_size * output_size + output_size
    return total
