# right: closed form in floats, round() gives a Python int

def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 2.0 if bidirectional else 1.0
    nb = 2.0 if double_bias else 1.0
    H = float(hidden_size)
    total = D * (input_size * H + H * H + nb * H) + (num_layers - 1) * D * (D * H * H + H * H + nb * H)
    if output_size > 0:
        total += D * H * output_size + output_size
    return round(total)                      # round() of a float is a Python int
