# correct code written another way: full marks, no diagnosis


def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.einsum("bd,dh->bh", x_t, W_x) + np.einsum("bk,kh->bh", h_prev, W_h) + b[None, :])


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    out = []
    state = 0.0
    for v in sequence:
        state = float(np.tanh(w_x * v + w_h * state + b))
        out.append(state)
    return out
