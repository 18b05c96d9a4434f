# wrong: bwd unpacked as (W_h, W_x, b)

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    W_h, W_x, b = bwd                         # (W_x, W_h, b) read in another order
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, W_x, W_h, b, h0=h0)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
