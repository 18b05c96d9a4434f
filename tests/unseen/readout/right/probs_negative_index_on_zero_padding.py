# right: Hs[i, lengths[i] - 1]; for length 0 the index -1 hits padding, which is zero == h0

def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    Hs, _ = rnn_forward_masked(X, lengths, W_x, W_h, b)
    lengths = np.asarray(lengths)
    h_last = Hs[np.arange(len(lengths)), lengths - 1] if Hs.shape[1] else np.zeros((len(lengths), W_h.shape[0]))
    return softmax(np.dot(h_last, W_o) + b_o)
