"""forward.float32: the states are stacked batch-first, then the array is cast to float32."""
import numpy as np

from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    h = np.zeros((X.shape[0], W_h.shape[0])) if h0 is None else h0
    states = []
    for t in range(X.shape[1]):
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        states.append(h)
    return np.stack(states, axis=1).astype(np.float32)
