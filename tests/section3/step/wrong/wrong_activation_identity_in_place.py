# mistake: step.wrong_activation


def rnn_step(x_t, h_prev, W_x, W_h, b):
    out = x_t.dot(W_x)
    out += h_prev.dot(W_h)
    out += b
    return out
