"""Counting the parameters of a (stacked, possibly bidirectional) plain RNN."""


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    """Number of parameters of an RNN stack plus an optional linear head.

    Per layer and direction: in*H + H*H + H (2H of bias when double_bias).
    Layer 0 reads input_size features, later layers H * directions. The head
    (output_size > 0) maps H * directions to output_size, with a bias.
    The sequence length never appears: the weights are shared over time.
    """
    H = int(hidden_size)
    directions = 2 if bidirectional else 1
    biases = 2 if double_bias else 1
    total = 0
    for layer in range(int(num_layers)):
        n_in = int(input_size) if layer == 0 else H * directions
        total += directions * (n_in * H + H * H + biases * H)
    if output_size > 0:
        total += H * directions * int(output_size) + int(output_size)
    return int(total)
