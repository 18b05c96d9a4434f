# mistake: birnn.reversed_padding


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    forward_states, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    backward_states, _ = rnn_forward_masked(np.flip(X, axis=1), lengths, *bwd, h0=h0)
    return np.concatenate((forward_states, np.flip(backward_states, axis=1)), axis=2)
