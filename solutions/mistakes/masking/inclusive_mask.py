"""The mask uses t <= length, so one padded position per row is marked valid."""
import numpy as np


def sequence_mask(lengths, T):
    lengths = np.asarray(lengths)
    return np.arange(T)[None, :] <= lengths[:, None]
