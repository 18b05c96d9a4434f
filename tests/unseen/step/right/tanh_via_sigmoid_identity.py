# right: tanh z = 2 sigmoid(2z) - 1 (overflow warning only where the result is exactly -1)

def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    with np.errstate(over="ignore"):
        return 2.0 / (1.0 + np.exp(-2.0 * z)) - 1.0      # tanh z = 2 sigmoid(2z) - 1
