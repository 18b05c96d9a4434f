"""readout.cleans_input_in_place: X[i, n:] = 0 row by row, then the masked pass."""


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    for i, n in enumerate(lengths):
        X[i, int(n):] = 0
    _, h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)  # noqa: F821 -- the reference file's
    return softmax(h_last @ W_o + b_o)  # noqa: F821 -- the reference file's
