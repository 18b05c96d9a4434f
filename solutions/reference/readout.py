"""Many-to-one readout: last valid state -> linear layer -> softmax."""
import numpy as np

from masking import rnn_forward_masked


def softmax(z, axis=-1):
    """Softmax along `axis`, stable for large values (shift by the maximum)."""
    shifted = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    """Class probabilities (B, C) = softmax(h_last @ W_o + b_o).

    h_last is each row's last valid state from the masked pass with h0 = 0.
    W_o (H, C), b_o (C,).
    """
    _, h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)
    return softmax(h_last @ W_o + b_o, axis=-1)
