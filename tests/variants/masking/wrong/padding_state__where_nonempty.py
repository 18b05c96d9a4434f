"""masking.padding_state with np.where: the last array position for every row that has a valid step."""
import numpy as np


def last_valid_state(Hs, lengths):
    lengths = np.asarray(lengths)
    return np.where((lengths > 0)[:, None], Hs[:, Hs.shape[1] - 1], 0.0)
