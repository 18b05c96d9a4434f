"""masking.ce_unstable: log-sum-exp without the shift, log(sum(exp(z))) - z[target]: inf for logits of 1e3."""
import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])  # noqa: F821 -- the reference file's
    if mask.sum() == 0:
        return 0.0
    z = logits[mask]
    t = np.asarray(targets)[mask].astype(int)
    with np.errstate(over="ignore", invalid="ignore"):
        lse = np.log(np.sum(np.exp(z), axis=1))
        return float(np.mean(lse - z[np.arange(len(t)), t]))
