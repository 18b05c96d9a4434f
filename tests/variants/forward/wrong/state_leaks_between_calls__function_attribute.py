"""forward.state_leaks_between_calls: the last state is kept on the function and reused when h0 is None
and it still fits the batch."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    if h0 is None:
        last = getattr(rnn_forward, "last", None)
        h0 = last if last is not None and last.shape == (B, H) else np.zeros((B, H))
    h = h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        Hs[:, t] = h
    rnn_forward.last = h
    return Hs
