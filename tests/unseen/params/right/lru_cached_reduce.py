# right: functools.lru_cache on a pure function, functools.reduce over the layer inputs

import functools
@functools.lru_cache(maxsize=None)
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 2 if bidirectional else 1
    ins = [input_size] + [D * hidden_size] * (num_layers - 1)
    per_layer = lambda n_in: D * (n_in * hidden_size + hidden_size * hidden_size + hidden_size * (2 if double_bias else 1))
    total = functools.reduce(lambda acc, n_in: acc + per_layer(n_in), ins, 0)
    return total + (output_size > 0) * (D * hidden_size * output_size + output_size)
