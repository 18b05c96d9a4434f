"""readout.cleans_input_in_place: np.copyto(X, 0.0, where=padding) before the forward loop."""
import numpy as np


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    B, T, _ = X.shape
    pad = np.arange(T) >= np.asarray(lengths).reshape(B, 1)
    np.copyto(X, 0.0, where=pad[:, :, None])
    h = np.zeros((B, W_h.shape[0]))
    for t in range(T):
        h = np.where(pad[:, t:t + 1], h, np.tanh(X[:, t] @ W_x + h @ W_h + b))
    return softmax(h @ W_o + b_o)  # noqa: F821 -- the reference file's
