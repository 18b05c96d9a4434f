# right: numpy arithmetic over the parameter shapes, converted with int()

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H = hidden_size
    D = 2 if bidirectional else 1
    shapes = []
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        for _ in range(D):
            shapes += [(n_in, H), (H, H), (H,)] + ([(H,)] if double_bias else [])
    if output_size > 0:
        shapes += [(D * H, output_size), (output_size,)]
    return int(np.sum([np.prod(s) for s in shapes]))
