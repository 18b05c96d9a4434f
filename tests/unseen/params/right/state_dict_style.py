# right: a dict of named tensors like a library's state_dict, summed with math.prod

import math
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H = hidden_size
    sd = {}
    for layer in range(num_layers):
        for suffix in (["", "_reverse"] if bidirectional else [""]):
            n_in = input_size if layer == 0 else H * (2 if bidirectional else 1)
            sd[f"weight_ih_l{layer}{suffix}"] = (H, n_in)
            sd[f"weight_hh_l{layer}{suffix}"] = (H, H)
            sd[f"bias_ih_l{layer}{suffix}"] = (H,)
            if double_bias:
                sd[f"bias_hh_l{layer}{suffix}"] = (H,)
    if output_size:
        sd["fc.weight"] = (output_size, H * (2 if bidirectional else 1))
        sd["fc.bias"] = (output_size,)
    return sum(math.prod(s) for s in sd.values())
