"""The whole padded row is reversed and then run through the masked pass, which now treats the padding as the valid part."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(X[:, ::-1], lengths, *bwd, h0=h0)
    return np.concatenate([H_f, H_r[:, ::-1]], axis=-1)
