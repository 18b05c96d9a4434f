"""birnn.reversed_padding: the reversed row run through the masked pass with every length set to T."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    lengths = np.asarray(lengths)
    ahead, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)  # noqa: F821 -- the reference file's
    rev, _ = rnn_forward_masked(X[:, ::-1], np.full(B, T), *bwd, h0=h0)  # noqa: F821
    back = rev[:, ::-1] * (np.arange(T)[None, :, None] < lengths[:, None, None])
    return np.concatenate([ahead, back], axis=-1)
