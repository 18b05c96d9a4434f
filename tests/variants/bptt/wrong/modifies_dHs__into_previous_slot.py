"""bptt.modifies_dHs: the recurrent gradient is added into dHs[:, t-1] of the caller's array, and the
pre-activation gradients are then taken from dHs all at once."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    h_init = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h_init)  # noqa: F821 -- the reference file's
    deriv = 1 - Hs ** 2
    for t in range(T - 1, 0, -1):
        dHs[:, t - 1] += (dHs[:, t] * deriv[:, t]) @ W_h.T
    dA = dHs * deriv
    prev = np.concatenate([h_init[:, None], Hs[:, :-1]], axis=1)
    return {"dX": dA @ W_x.T, "dh0": dA[:, 0] @ W_h.T, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", prev, dA), "db": dA.sum(axis=(0, 1))}
