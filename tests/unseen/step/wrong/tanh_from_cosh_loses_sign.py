# wrong: tanh rebuilt as sqrt(1 - sech^2): |tanh z|, wrong for every negative pre-activation

def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    with np.errstate(over="ignore"):
        return np.sqrt(1.0 - 1.0 / np.cosh(z) ** 2)      # |tanh z|: the sign is lost
