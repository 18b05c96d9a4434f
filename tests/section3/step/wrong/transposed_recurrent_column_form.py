# mistake: step.transposed_recurrent


def rnn_step(x_t, h_prev, W_x, W_h, b):
    # the column form W_h h_(t-1) of the second chapter, turned back into rows
    recurrent = (W_h @ h_prev.T).T
    return np.tanh(x_t @ W_x + recurrent + b)
