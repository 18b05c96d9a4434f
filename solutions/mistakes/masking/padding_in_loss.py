"""The cross-entropy is averaged over all B*T positions, padded ones included."""
import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    z = logits - logits.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(logp, np.asarray(targets)[..., None], axis=-1)[..., 0]
    return float(-picked.mean())
