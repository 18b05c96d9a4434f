"""readout.no_output_bias: the masked pass reused, the logits are h_last @ W_o only."""
import numpy as np


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    _, h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)  # noqa: F821 -- the reference file's
    return softmax(np.dot(h_last, W_o), axis=1)  # noqa: F821 -- the reference file's
