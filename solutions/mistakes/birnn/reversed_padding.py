"""The whole padded row is reversed (X[:, ::-1]), so the backward pass starts in the padding."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, d = X.shape
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    W_x, W_h, b = bwd
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    X_rev = X[:, ::-1]
    H_rev = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X_rev[:, t] @ W_x + h @ W_h + b)
        H_rev[:, t] = h
    H_b = H_rev[:, ::-1]
    mask = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    H_b = np.where(mask[:, :, None], H_b, 0.0)
    return np.concatenate([H_f, H_b], axis=-1)
