"""masking.ce_empty_nan: a loop adds the losses into a NumPy float and divides by the count: 0.0 / 0 is NaN."""
import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    total = np.float64(0.0)
    count = 0
    for i, L in enumerate(np.asarray(lengths, dtype=int)):
        for t in range(min(L, logits.shape[1])):
            z = logits[i, t]
            m = z.max()
            total += -(z[int(targets[i, t])] - m - np.log(np.exp(z - m).sum()))
            count += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(total / count)
