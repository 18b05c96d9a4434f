"""A bidirectional RNN over a padded batch."""
import numpy as np

from masking import rnn_forward_masked


def reverse_valid(A, lengths):
    """Reverse each row's first lengths[i] steps of A (B, T, ...); padding stays put."""
    lengths = np.asarray(lengths, dtype=int)
    B, T = A.shape[:2]
    t = np.arange(T)[None, :]
    src = lengths[:, None] - 1 - t                     # mirrored position
    src = np.where(t < lengths[:, None], src, t)       # padding: keep index
    return A[np.arange(B)[:, None], src]


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    """Concatenated states (B, T, 2H) of a forward and a backward pass.

    fwd and bwd are (W_x, W_h, b). [..., :H] is the masked forward pass;
    [..., H:] at step t is the state of a pass over the row's valid part in
    reverse (starting at its last valid step), put back at step t. Padded
    positions are zero; h0 (default zeros) starts both directions.
    """
    H_fwd, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_rev, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    H_bwd = reverse_valid(H_rev, lengths)
    return np.concatenate([H_fwd, H_bwd], axis=-1)
