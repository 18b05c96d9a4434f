"""masking.zeroes_input_in_place: each row's tail X[i, L:] is set to 0 in a loop, in the caller's X."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    for i, L in enumerate(lengths):
        X[i, int(L):] = 0
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        keep = (t < np.asarray(lengths))[:, None]
        h = np.where(keep, np.tanh(X[:, t] @ W_x + h @ W_h + b), h)
        Hs[:, t] = np.where(keep, h, 0.0)
    return Hs, h
