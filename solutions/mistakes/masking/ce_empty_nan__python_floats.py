"""The loss is summed in Python floats and divided by the number of valid positions without guarding 0: when
no position is valid, total / count raises ZeroDivisionError (where numpy's 0/0 gives NaN)."""
import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    mask = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    z = np.where(mask[..., None], logits, 0.0)
    logp = z - np.logaddexp.reduce(z, axis=-1, keepdims=True)
    tgt = np.where(mask, targets, 0)
    nll = -np.take_along_axis(logp, tgt[..., None], axis=-1)[..., 0]
    total, count = float(np.sum(nll * mask)), int(np.sum(mask))
    return total / count
