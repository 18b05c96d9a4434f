# right: [x_t, h_prev] @ vstack([W_x, W_h]): the combined-weight form

def rnn_step(x_t, h_prev, W_x, W_h, b):
    W = np.vstack([W_x, W_h])                    # (d + H, H)
    return np.tanh(np.hstack([x_t, h_prev]) @ W + b)
