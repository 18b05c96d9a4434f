def lstm_step(x, h_prev, c_prev, W, U, b, forget_bias=0.0):
    H = h_prev.shape[1]
    z = x @ W + h_prev @ U + b
    i, f = _sigmoid(z[:, :H]), _sigmoid(z[:, H:2 * H] + forget_bias)
    g, o = np.tanh(z[:, 2 * H:3 * H]), _sigmoid(z[:, 3 * H:])
    c_t = f * c_prev + i * g
    return c_t, o * np.tanh(c_t)
