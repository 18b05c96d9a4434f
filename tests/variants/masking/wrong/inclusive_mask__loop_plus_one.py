"""masking.inclusive_mask in a loop: lengths[i] + 1 positions marked valid (capped at T)."""
import numpy as np


def sequence_mask(lengths, T):
    mask = np.zeros((len(lengths), T), dtype=bool)
    for i, n in enumerate(lengths):
        mask[i, :min(int(n) + 1, T)] = True
    return mask
