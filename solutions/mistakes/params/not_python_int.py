"""The count is built with NumPy and returned as a numpy integer instead of a Python int."""
import numpy as np


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    dirs = 2 if bidirectional else 1
    H = hidden_size
    ins = np.array([input_size] + [H * dirs] * (num_layers - 1))
    nb = 2 if double_bias else 1
    total = np.sum(dirs * (ins * H + H * H + nb * H))
    if output_size > 0:
        total = total + H * dirs * output_size + output_size
    return total
