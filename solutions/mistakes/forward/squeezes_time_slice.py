"""np.squeeze on the time slice: with d == 1 and B > 1 it drops the feature axis and the product fails."""
import numpy as np


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        x_t = np.squeeze(X[:, t])
        h = np.tanh(x_t @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
