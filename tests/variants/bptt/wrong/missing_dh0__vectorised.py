"""bptt.missing_dh0: states from rnn_forward, gradients with tensordot; the dict is built without dh0."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    start = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start)  # noqa: F821 -- the reference file's
    dA = np.empty_like(Hs)
    carry = np.zeros_like(start)
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + carry) * (1.0 - np.square(Hs[:, t]))
        carry = np.dot(dA[:, t], W_h.T)
    prev = np.concatenate([start[:, None], Hs[:, :-1]], axis=1)
    return dict(dX=np.dot(dA, W_x.T), dW_x=np.tensordot(X, dA, axes=([0, 1], [0, 1])),
                dW_h=np.tensordot(prev, dA, axes=([0, 1], [0, 1])), db=dA.sum(axis=1).sum(axis=0))
