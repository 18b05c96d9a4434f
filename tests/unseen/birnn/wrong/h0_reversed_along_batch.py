# wrong only with h0 and B > 1: h0[::-1] (batch axis) starts the backward pass

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    h0_rev = None if h0 is None else h0[::-1]                   # "reverse everything for the backward pass"
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0_rev)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
