# right: the chapter's column form, transposed back (returns an F-ordered array)

def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(W_h.T @ h_prev.T + W_x.T @ x_t.T + b[:, None]).T
