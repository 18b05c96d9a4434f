"""birnn.unaligned_backward: each row's valid part flipped with np.flip and run backward, but the states
are left in reversed order (never flipped back to line up with time)."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    flipped = np.zeros_like(X)
    for i, n in enumerate(np.asarray(lengths, dtype=int)):
        flipped[i, :n] = np.flip(X[i, :n], axis=0)
    forward_states, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)  # noqa: F821 -- the reference file's
    backward_states, _ = rnn_forward_masked(flipped, lengths, *bwd, h0=h0)  # noqa: F821
    return np.dstack([forward_states, backward_states])
