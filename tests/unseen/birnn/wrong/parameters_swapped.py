# wrong: bwd drives the forward half and fwd the backward half

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *bwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *fwd, h0=h0)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
