"""forward.squeezes_time_slice: X[:, t:t+1] (B, 1, d) is squeezed to lose the time axis, and every other
axis of size 1 goes with it."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    h = h0 if h0 is not None else np.zeros((B, H))
    for t in range(T):
        h = rnn_step(np.squeeze(X[:, t:t + 1]), h, W_x, W_h, b)
        Hs[:, t, :] = h
    return Hs
