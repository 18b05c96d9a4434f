# wrong: np.squeeze on the result drops the batch axis when B == 1 (and the unit axis when H == 1)

def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.squeeze(np.tanh(x_t @ W_x + h_prev @ W_h + b))
