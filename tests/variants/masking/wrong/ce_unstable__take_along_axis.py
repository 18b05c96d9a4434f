"""masking.ce_unstable: probabilities exp(z) / sum exp(z) over the whole batch, picked with take_along_axis,
-log averaged over the valid positions (selected with np.where)."""
import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    mask = np.arange(logits.shape[1])[None, :] < np.asarray(lengths)[:, None]
    count = np.count_nonzero(mask)
    if count == 0:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        probs = np.exp(logits) / np.sum(np.exp(logits), axis=2, keepdims=True)
        picked = np.take_along_axis(probs, np.where(mask, targets, 0).astype(int)[:, :, None], axis=2)[:, :, 0]
        return float(np.where(mask, -np.log(picked), 0.0).sum() / count)
