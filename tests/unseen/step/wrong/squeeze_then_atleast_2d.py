# wrong only when H == 1 and B > 1: squeeze + atleast_2d turns (B, 1) into (1, B)

def rnn_step(x_t, h_prev, W_x, W_h, b):
    # "clean up" stray unit axes, then make sure the result is 2-D again
    return np.atleast_2d(np.squeeze(np.tanh(x_t @ W_x + h_prev @ W_h + b)))
