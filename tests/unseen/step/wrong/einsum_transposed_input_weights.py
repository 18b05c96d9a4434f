# wrong: einsum with the input weights transposed (column-form habit); only shape-valid when d == H

def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.einsum("bd,hd->bh", x_t, W_x) + np.einsum("bk,kh->bh", h_prev, W_h) + b)
