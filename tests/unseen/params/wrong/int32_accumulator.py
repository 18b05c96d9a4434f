# wrong only for big layers: sizes summed in int32 (the Windows default int of NumPy < 2) overflow past 2**31

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    sizes = []
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        sizes += D * [n_in * H, H * H, nb * H]
    if output_size > 0:
        sizes += [D * H * output_size, output_size]
    return int(np.array(sizes, dtype=np.int32).sum(dtype=np.int32))   # a Windows default int
