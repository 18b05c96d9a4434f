# mistake: bptt.no_recurrent_grad


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    # the file's own (right) truncated BPTT with chunks of one step
    return truncated_rnn_backward(X, W_x, W_h, b, dHs, 1, h0=h0)
