# wrong: the recurrent product is done in float32 ("to save memory") and mixed back into float64

def rnn_step(x_t, h_prev, W_x, W_h, b):
    rec = h_prev.astype(np.float32) @ W_h.astype(np.float32)
    return np.tanh(x_t @ W_x + rec + b)
