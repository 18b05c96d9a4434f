# right: recursion over the layers, bool arithmetic for the multipliers

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 1 + bool(bidirectional)
    def layers(n, n_in):
        if n == 0:
            return 0
        return D * (n_in * hidden_size + hidden_size ** 2 + (1 + bool(double_bias)) * hidden_size) + layers(n - 1, D * hidden_size)
    head = (D * hidden_size + 1) * output_size if output_size > 0 else 0
    return layers(num_layers, input_size) + head
