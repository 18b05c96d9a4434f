# mistake: birnn.unaligned_backward


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    # the file's (right) reverse_valid for the inputs, but the states are never put back
    H_fwd, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_rev, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    return np.concatenate([H_fwd, H_rev], axis=-1)
