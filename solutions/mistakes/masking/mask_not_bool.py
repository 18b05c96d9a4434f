"""The mask is returned as 0/1 integers instead of booleans."""
import numpy as np


def sequence_mask(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T), dtype=int)
    for i, L in enumerate(lengths):
        mask[i, :L] = 1
    return mask
