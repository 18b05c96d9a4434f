"""masking.mask_not_bool: the comparison turned into a compact 0/1 uint8 mask."""
import numpy as np


def sequence_mask(lengths, T):
    return (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(np.uint8)
