# wrong: causal shortcut over the unmasked pass, but length 0 reads Hs[i, -1]

from rnn_forward import rnn_forward
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    lengths = np.asarray(lengths)
    X0 = np.where(np.isfinite(X), X, 0.0)
    Hs = rnn_forward(X0, W_x, W_h, b)        # causal: Hs[i, L-1] never sees the padding
    h_last = Hs[np.arange(len(lengths)), lengths - 1]    # L == 0 reads Hs[i, -1]
    return softmax(h_last @ W_o + b_o)
