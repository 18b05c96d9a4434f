"""masking.ce_unstable: a softmax helper over the whole (B, T, V) logits, without the max shift, then the log
of the picked probabilities at the valid positions."""
import numpy as np


def softmax(z):
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def masked_cross_entropy(logits, targets, lengths):
    mask = np.arange(logits.shape[1])[None, :] < np.asarray(lengths)[:, None]
    n = int(mask.sum())
    if n == 0:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        p = softmax(logits)
        total = 0.0
        for i, t in zip(*np.nonzero(mask)):
            total -= np.log(p[i, t, int(targets[i, t])])
    return float(total / n)
