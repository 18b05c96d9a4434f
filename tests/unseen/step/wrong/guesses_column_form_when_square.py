# wrong only when d == H: a square W_x is taken for the column form and transposed

def rnn_step(x_t, h_prev, W_x, W_h, b):
    # accept both conventions: a (H, d) matrix means the column form W_x x_t
    if W_x.shape[0] == W_x.shape[1] == W_h.shape[0]:
        W_x = W_x.T
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
