# wrong: only layer 0 has two directions (later layers still read H * 2 features)

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = dirs * (input_size * H + H * H + nb * H)
    for _ in range(1, num_layers):
        total += H * dirs * H + H * H + nb * H
    if output_size > 0:
        total += H * dirs * output_size + output_size
    return total
