"""forward.state_leaks_between_calls: a global start state, used whatever its shape; when it does not fit,
the exception is caught and the pass starts from zeros."""
import numpy as np

_carry = None


def _run(X, W_x, W_h, b, h):
    Hs = np.zeros((X.shape[0], X.shape[1], W_h.shape[0]))
    for t in range(X.shape[1]):
        h = np.tanh(np.dot(X[:, t], W_x) + np.dot(h, W_h) + b)
        Hs[:, t] = h
    return Hs


def rnn_forward(X, W_x, W_h, b, h0=None):
    global _carry
    start = h0 if h0 is not None else _carry
    try:
        if start is None or start.shape != (X.shape[0], W_h.shape[0]):
            raise ValueError("no usable carried state")
        Hs = _run(X, W_x, W_h, b, start)
    except ValueError:
        Hs = _run(X, W_x, W_h, b, np.zeros((X.shape[0], W_h.shape[0])))
    _carry = Hs[:, -1].copy() if X.shape[1] else _carry
    return Hs
