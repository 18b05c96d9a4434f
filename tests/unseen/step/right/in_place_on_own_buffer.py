# right: in-place arithmetic on its own buffer only

def rnn_step(x_t, h_prev, W_x, W_h, b):
    out = x_t @ W_x
    out += h_prev @ W_h
    out += b
    np.tanh(out, out=out)
    return out
