# wrong only when B == d: x_t is taken for a column-form (d, B) input and transposed

def rnn_step(x_t, h_prev, W_x, W_h, b):
    # "x_t may come as a column vector (d, B)": transpose when the first axis has d entries
    if x_t.shape[0] == W_x.shape[0]:
        x_t = x_t.T
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
