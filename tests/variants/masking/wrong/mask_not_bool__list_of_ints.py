"""masking.mask_not_bool: nested comprehension of 1 and 0, turned into an array."""
import numpy as np


def sequence_mask(lengths, T):
    return np.array([[1 if t < n else 0 for t in range(T)] for n in lengths]).reshape(len(lengths), T)
