"""birnn.hstack_time_axis: np.concatenate(..., axis=1), the time axis, instead of the last one."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths, dtype=int)
    H_fwd, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_rev, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)  # noqa: F821 -- the reference file's reverse_valid
    return np.concatenate((H_fwd, reverse_valid(H_rev, lengths)), 1)  # noqa: F821 -- the reference file's reverse_valid
