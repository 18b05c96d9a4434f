# wrong: the forward half starts from zeros even when h0 is given

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
