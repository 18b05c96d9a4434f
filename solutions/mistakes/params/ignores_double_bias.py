"""double_bias is ignored: every layer is counted with a single bias vector."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    dirs = 2 if bidirectional else 1
    H = hidden_size
    total = 0
    for layer in range(num_layers):
        inp = input_size if layer == 0 else H * dirs
        total += dirs * (inp * H + H * H + H)
    if output_size > 0:
        total += H * dirs * output_size + output_size
    return total
