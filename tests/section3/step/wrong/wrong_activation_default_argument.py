# mistake: step.wrong_activation


def rnn_step(x_t, h_prev, W_x, W_h, b, activation=lambda z: np.maximum(z, 0.0)):
    # the mistake only in a default argument: ReLU unless another activation is passed
    return activation(x_t @ W_x + h_prev @ W_h + b)
