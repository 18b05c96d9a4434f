"""masking.ce_per_sequence_mean: per-row sums divided by each row's length, then the mean over the
non-empty rows."""
import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    lengths = np.asarray(lengths, dtype=int)
    mask = np.arange(logits.shape[1])[None, :] < np.asarray(lengths)[:, None]
    if not mask.any():
        return 0.0
    shifted = logits - logits.max(axis=-1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    tgt = np.where(mask, targets, 0).astype(int)
    nll = -np.take_along_axis(logp, tgt[..., None], axis=-1)[..., 0]
    per_row = np.where(mask, nll, 0.0).sum(axis=1)
    keep = lengths > 0
    return float(np.mean(per_row[keep] / lengths[keep]))
