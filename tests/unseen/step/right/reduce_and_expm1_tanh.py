# right: functools.reduce over tensordot terms, tanh from expm1 (clipped at +/-30, harmless)

import functools
def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = functools.reduce(np.add, [np.tensordot(x_t, W_x, axes=1), np.tensordot(h_prev, W_h, axes=1), b])
    z = np.clip(z, -30.0, 30.0)
    m = np.expm1(-2.0 * np.abs(z))
    return np.sign(z) * (-m / (2.0 + m))
