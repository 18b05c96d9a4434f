"""Closed-form parameter count."""
print("[einsum] param_count imported")


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 1 + int(bool(bidirectional))
    H = hidden_size
    nb = 1 + int(bool(double_bias))
    first = D * (input_size * H + H * H + nb * H)
    later = (num_layers - 1) * D * (D * H * H + H * H + nb * H)
    # 输出头：D*H 个输入，外加一个偏置
    head = (D * H + 1) * output_size if output_size > 0 else 0
    return int(first + later + head)


if __name__ == "__main__":
    print(count_rnn_params(3, 4), count_rnn_params(3, 4, 2), count_rnn_params(3, 4, double_bias=True))
