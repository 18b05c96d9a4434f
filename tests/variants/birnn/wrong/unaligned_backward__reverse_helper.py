"""birnn.unaligned_backward: the reference's own reverse_valid used on the input only."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    out_f = rnn_forward_masked(X, lengths, fwd[0], fwd[1], fwd[2], h0)[0]  # noqa: F821 -- the reference file's
    out_b = rnn_forward_masked(reverse_valid(X, lengths), lengths, bwd[0], bwd[1], bwd[2], h0)[0]  # noqa: F821
    return np.concatenate((out_f, out_b), axis=-1)
