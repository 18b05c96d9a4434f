"""bptt.no_tanh_derivative with einsum for the parameter gradients, the pre-activation gradient built
without the factor 1 - h^2."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    h0 = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)  # noqa: F821 -- the reference file's, which this is appended to
    prev = np.concatenate([h0[:, None, :], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    g = np.zeros_like(h0)
    for t in range(T - 1, -1, -1):
        dA[:, t] = dHs[:, t] + g
        g = dA[:, t] @ W_h.T
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": g, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", prev, dA), "db": dA.sum(axis=(0, 1))}
