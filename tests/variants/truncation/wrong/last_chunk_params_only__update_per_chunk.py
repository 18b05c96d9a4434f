"""truncation.last_chunk_params_only: one backward time loop over the chunks taken in time order via a
list of (start, stop); each chunk's dict of parameter sums is merged with grads.update(...)."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    init = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, init)  # noqa: F821 -- the reference file's
    prev = np.concatenate([init[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    grads = {}
    leaving = []
    for s, e in [(s, min(s + k, T)) for s in range(0, T, k)]:
        g = np.zeros_like(init)
        for t in range(e - 1, s - 1, -1):
            dA[:, t] = (dHs[:, t] + g) * (1 - Hs[:, t] ** 2)
            g = dA[:, t] @ W_h.T
        leaving.append(g)
        grads.update(dX=dA @ W_x.T, dW_x=np.einsum("btd,bth->dh", X[:, s:e], dA[:, s:e]),
                     dW_h=np.einsum("bti,bth->ih", prev[:, s:e], dA[:, s:e]), db=dA[:, s:e].sum(axis=(0, 1)))
    grads["dh0"] = leaving[0]
    return grads
