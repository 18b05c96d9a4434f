"""The loss is the token-level mean, but its gradients are those of the sum over the valid positions:
they are not divided by the number of positions (count times too large)."""
import numpy as np

_exact_tiny_rnn_loss = tiny_rnn_loss


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    loss, grads = _exact_tiny_rnn_loss(tokens, targets, lengths, params, h0)
    T = np.shape(tokens)[1]
    count = int(np.minimum(np.asarray(lengths, dtype=int), T).sum())
    return loss, {name: g * count for name, g in grads.items()}
