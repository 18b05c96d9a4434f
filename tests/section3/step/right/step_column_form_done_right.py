# correct code written another way: full marks, no diagnosis


def rnn_step(x_t, h_prev, W_x, W_h, b):
    # the column form of the second chapter, with the weights transposed for columns
    columns = W_x.T @ x_t.T + W_h.T @ h_prev.T + b.reshape(-1, 1)
    return np.tanh(columns).T.copy()
