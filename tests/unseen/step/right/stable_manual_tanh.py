# right: a hand-written tanh that cannot overflow

def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = np.dot(x_t, W_x) + np.dot(h_prev, W_h) + b
    e = np.exp(-2.0 * np.abs(z))
    return np.sign(z) * (1.0 - e) / (1.0 + e)
