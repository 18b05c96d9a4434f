"""masking.inclusive_mask: t <= length, with broadcasting."""
import numpy as np


def sequence_mask(lengths, T):
    return np.arange(T)[None, :] <= np.asarray(lengths)[:, None]
