# wrong: double_bias also doubles the head's bias

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = sum(dirs * ((input_size if l == 0 else H * dirs) * H + H * H + nb * H) for l in range(num_layers))
    if output_size > 0:
        total += H * dirs * output_size + nb * output_size
    return total
