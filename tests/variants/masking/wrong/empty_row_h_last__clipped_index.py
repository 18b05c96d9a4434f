"""masking.empty_row_h_last: each row is run on its own, and h_last is picked at the clipped index
max(lengths - 1, 0): for a length-0 row that is position 0, a zero padded state, not h0."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for i in range(B):
        h = start[i]
        for t in range(int(lengths[i])):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            Hs[i, t] = h
    idx = np.clip(np.asarray(lengths, dtype=int) - 1, 0, None)
    return Hs, Hs[np.arange(B), idx]
