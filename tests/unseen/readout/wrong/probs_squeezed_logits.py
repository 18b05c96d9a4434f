# wrong only when B == 1 (shape (C,)) or C == 1 (softmax over the batch): np.squeeze on the logits

def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    _, h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)
    logits = np.squeeze(h_last @ W_o + b_o)        # "drop the stray axes"
    return softmax(logits, axis=-1)
