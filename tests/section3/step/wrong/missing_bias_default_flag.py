# mistake: step.missing_bias


def rnn_step(x_t, h_prev, W_x, W_h, b, use_bias=False):
    # the mistake only in a default argument: the grader's calls leave use_bias out
    z = x_t @ W_x + h_prev @ W_h
    if use_bias:
        z = z + b
    return np.tanh(z)
