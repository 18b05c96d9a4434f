# right: np.dstack of the two (B, T, H) halves joins the last axis

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    return np.dstack([H_f, reverse_valid(H_r, lengths)])      # for 3-D arrays dstack joins the last axis
