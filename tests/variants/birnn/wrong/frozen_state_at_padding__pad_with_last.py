"""birnn.frozen_state_at_padding: each row's valid states, then the padding filled with the row's last state."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    halves = []
    for (W_x, W_h, b), backwards in ((fwd, False), (bwd, True)):
        half = np.empty((B, T, H))
        for i in range(B):
            L = int(lengths[i])
            h = np.zeros(H) if h0 is None else h0[i].astype(float)
            order = range(L - 1, -1, -1) if backwards else range(L)
            for t in order:
                h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
                half[i, t] = h
            half[i, L:] = h          # padding: keep the last state
        halves.append(half)
    return np.concatenate(halves, axis=-1)
