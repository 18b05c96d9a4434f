"""birnn.halves_swapped: both passes right, joined with np.dstack in the order (backward, forward)."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths, dtype=int)
    forward_states, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    backward_states, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)  # noqa: F821 -- the reference file's reverse_valid
    return np.dstack([reverse_valid(backward_states, lengths), forward_states])  # noqa: F821 -- the reference file's reverse_valid
