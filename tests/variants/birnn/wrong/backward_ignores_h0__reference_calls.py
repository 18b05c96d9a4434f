"""birnn.backward_ignores_h0: the reference's calls, h0 passed on to the forward direction only."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    Hf = rnn_forward_masked(X, lengths, *fwd, h0=h0)[0]
    Hr = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd)[0]  # noqa: F821 -- the reference file's reverse_valid
    return np.concatenate([Hf, reverse_valid(Hr, lengths)], axis=-1)  # noqa: F821 -- the reference file's reverse_valid
