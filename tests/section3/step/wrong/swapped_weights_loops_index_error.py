# mistake: step.swapped_weights
# The catalogued x_t @ W_h raises numpy's ValueError whenever d != H; only the square cases
# show values.


def rnn_step(x_t, h_prev, W_x, W_h, b):
    # explicit loops: where d != H an index runs off W_x or W_h, an IndexError
    B, H = h_prev.shape
    d = x_t.shape[1]
    h_t = np.empty((B, H))
    for i in range(B):
        for j in range(H):
            total = b[j]
            for k in range(d):
                total += x_t[i, k] * W_h[k, j]
            for k in range(H):
                total += h_prev[i, k] * W_x[k, j]
            h_t[i, j] = math.tanh(total)
    return h_t
