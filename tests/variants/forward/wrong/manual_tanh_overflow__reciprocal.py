"""forward.manual_tanh_overflow: a helper tanh from e = exp(z) and 1/e, NaN where e or 1/e is inf."""
import numpy as np


def my_tanh(z):
    e = np.exp(z)
    inv = 1.0 / e
    return (e - inv) / (e + inv)


def rnn_forward(X, W_x, W_h, b, h0=None):
    states = []
    h = np.zeros((X.shape[0], W_h.shape[0])) if h0 is None else h0
    for t in range(X.shape[1]):
        h = my_tanh(np.einsum("bd,dh->bh", X[:, t], W_x) + np.einsum("bk,kh->bh", h, W_h) + b)
        states.append(h)
    return np.stack(states, axis=1) if states else np.zeros((X.shape[0], 0, W_h.shape[0]))
