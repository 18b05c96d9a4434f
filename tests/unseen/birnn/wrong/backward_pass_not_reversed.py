# wrong: the 'backward' half runs forward in time with the bwd weights

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_b, _ = rnn_forward_masked(X, lengths, *bwd, h0=h0)        # same direction, other weights
    return np.concatenate([H_f, H_b], axis=-1)
