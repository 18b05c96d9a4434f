# wrong: "loads the weights once": keeps the first weights seen for each shape, ignores later ones

_weights = {}
def rnn_step(x_t, h_prev, W_x, W_h, b):
    W_x, W_h, b = _weights.setdefault((W_x.shape, W_h.shape), (W_x, W_h, b))
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
