# mistake: step.transposed_recurrent


def rnn_step(x_t, h_prev, W_x, W_h, b):
    B, H = h_prev.shape
    out = np.zeros((B, H))
    for i in range(B):
        for j in range(H):
            out[i, j] = np.dot(x_t[i], W_x[:, j]) + np.dot(h_prev[i], W_h[j, :]) + b[j]
    return np.tanh(out)
