# right: plain Python loops with math.tanh, another summation order

def rnn_step(x_t, h_prev, W_x, W_h, b):
    B, d = x_t.shape
    H = W_h.shape[0]
    out = np.empty((B, H))
    for i in range(B):
        for j in range(H):
            s = float(b[j])
            for k in range(H):
                s += h_prev[i, k] * W_h[k, j]
            for k in range(d):
                s += x_t[i, k] * W_x[k, j]
            out[i, j] = math.tanh(s)
    return out
