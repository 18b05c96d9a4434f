# mistake: step.swapped_weights
# The catalogued x_t @ W_h raises numpy's ValueError whenever d != H; only the square cases
# show values.


def rnn_step(x_t, h_prev, W_x, W_h, b):
    # an AssertionError of its own when d != H, then einsum with the weights swapped
    assert x_t.shape[1] == h_prev.shape[1], "rnn_step: this code needs d == H"
    pre = np.einsum("bd,dh->bh", x_t, W_h) + np.einsum("bk,kh->bh", h_prev, W_x)
    return np.tanh(pre + b)
