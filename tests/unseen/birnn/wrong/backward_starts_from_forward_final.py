# wrong: the backward pass starts from the forward pass's final state

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, h_last = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h_last)   # chained directions
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
