"""The loss averages each sequence first, then the sequences (not a token-level mean over the batch)."""
import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    lengths = np.asarray(lengths)
    per_seq = []
    for i in range(B):
        L = int(lengths[i])
        if L == 0:
            continue
        z = logits[i, :L]
        logp = z - np.logaddexp.reduce(z, axis=-1, keepdims=True)
        per_seq.append(-logp[np.arange(L), targets[i, :L]].mean())
    if not per_seq:
        return 0.0
    return float(np.mean(per_seq))
