# wrong: "tanh(z) = 2 sigmoid(z) - 1" without the factor 2 inside, i.e. tanh(z / 2)

def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    return 2.0 / (1.0 + np.exp(-z)) - 1.0
