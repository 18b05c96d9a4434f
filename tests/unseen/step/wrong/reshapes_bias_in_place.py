# wrong: reshapes the caller's bias in place (assigning to .shape mutates the argument)

def rnn_step(x_t, h_prev, W_x, W_h, b):
    b.shape = (1, -1)
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
