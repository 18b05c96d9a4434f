# 作业：数一数 RNN 的参数（逐层逐方向累加）
print("param_count.py (loops) loaded")


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    directions = 2 if bidirectional else 1
    total = 0
    for layer in range(num_layers):
        for _direction in range(directions):
            n_in = input_size if layer == 0 else hidden_size * directions
            total += n_in * hidden_size          # W_x
            total += hidden_size * hidden_size   # W_h
            total += hidden_size                 # b
            if double_bias:
                total += hidden_size             # 某些库再存一个偏置
    if output_size > 0:
        total += hidden_size * directions * output_size + output_size   # 线性头：权重 + 偏置
    return int(total)


if __name__ == "__main__":
    assert count_rnn_params(3, 4) == 32
    assert count_rnn_params(3, 4, output_size=2) == 42
    print("ok")
