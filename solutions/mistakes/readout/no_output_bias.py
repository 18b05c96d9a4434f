"""The output bias b_o is left out of the logits."""
import numpy as np


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    B, T, d = X.shape
    H = W_h.shape[0]
    lengths = np.asarray(lengths)
    h = np.zeros((B, H))
    for t in range(T):
        valid = (t < lengths)[:, None]
        h_new = np.tanh(np.where(valid, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(valid, h_new, h)
    logits = h @ W_o
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
