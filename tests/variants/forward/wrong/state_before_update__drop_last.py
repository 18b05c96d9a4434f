"""forward.state_before_update: the list of states starts with h0, and the last one is dropped to fit T."""
import numpy as np


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    states = [np.zeros((B, W_h.shape[0])) if h0 is None else np.array(h0, dtype=float)]
    for t in range(T):
        states.append(np.tanh(np.dot(X[:, t], W_x) + np.dot(states[-1], W_h) + b))
    return np.stack(states[:-1], axis=1)
