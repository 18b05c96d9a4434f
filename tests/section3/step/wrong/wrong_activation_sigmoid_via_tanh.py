# mistake: step.wrong_activation


def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = np.dot(x_t, W_x) + np.dot(h_prev, W_h) + b
    return 0.5 * (1.0 + np.tanh(0.5 * z))     # the logistic sigmoid, written with tanh
