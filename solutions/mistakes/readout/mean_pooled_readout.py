"""The readout uses the mean of the valid states instead of the last valid state."""
import numpy as np


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    B, T, d = X.shape
    H = W_h.shape[0]
    lengths = np.asarray(lengths)
    h = np.zeros((B, H))
    total = np.zeros((B, H))
    for t in range(T):
        valid = (t < lengths)[:, None]
        h_new = np.tanh(np.where(valid, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(valid, h_new, h)
        total += np.where(valid, h, 0.0)
    pooled = total / np.maximum(lengths, 1)[:, None]
    return softmax(pooled @ W_o + b_o)
