"""The loss and its gradients both summed over the valid positions, neither divided by their number (as
min-char-rnn's loss function returns them): the gradients are those of grads_of_sum, and the loss, which
this mistake does not concern (silent in the catalogue), is the sum too."""
import numpy as np

_exact_tiny_rnn_loss = tiny_rnn_loss


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    loss, grads = _exact_tiny_rnn_loss(tokens, targets, lengths, params, h0)
    T = np.shape(tokens)[1]
    count = int(np.minimum(np.asarray(lengths, dtype=int), T).sum())
    return float(loss * count), {name: g * count for name, g in grads.items()}
