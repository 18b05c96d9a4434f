"""birnn.reversed_padding: np.flip of the whole padded row, so the backward pass starts in the padding;
flipped back and the padding zeroed afterwards."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    W_x, W_h, b = bwd
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.array(h0, dtype=float)
    back = []
    for x_t in np.flip(X, axis=1).transpose(1, 0, 2):
        h = np.tanh(x_t @ W_x + h @ W_h + b)
        back.append(h)
    back = np.flip(np.stack(back, axis=1), axis=1)
    valid = (np.arange(T) < np.asarray(lengths)[:, None])[..., None]
    ahead, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)  # noqa: F821 -- the reference file's
    return np.concatenate([ahead, np.where(valid, back, 0.0)], axis=2)
