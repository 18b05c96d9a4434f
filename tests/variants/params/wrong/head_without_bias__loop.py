"""params.head_without_bias: the head is counted as its weight matrix only."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    dirs = 2 if bidirectional else 1
    total = 0
    width = input_size
    for _ in range(num_layers):
        per_dir = width * hidden_size + hidden_size * hidden_size + hidden_size
        if double_bias:
            per_dir += hidden_size
        total += dirs * per_dir
        width = dirs * hidden_size
    total += width * output_size        # the head: 2H (or H) inputs to output_size
    return total
