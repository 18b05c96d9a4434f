"""gradient_flow.norms_of_dX: the forward pass from rnn_forward, then the norm of the input gradient via einsum."""
import numpy as np

from rnn_forward import rnn_forward


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    T = Hs.shape[1]
    out = np.empty(T)
    g = np.ones_like(Hs[:, 0])
    for t in range(T - 1, -1, -1):
        g_pre = g * (1 - Hs[:, t] * Hs[:, t])
        dX_t = np.einsum("bh,dh->bd", g_pre, W_x)
        out[t] = np.sqrt((dX_t ** 2).sum())
        g = np.einsum("bh,kh->bk", g_pre, W_h)
    return out
