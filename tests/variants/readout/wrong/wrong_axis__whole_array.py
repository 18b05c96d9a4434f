"""readout.wrong_axis: normalised over the whole array (np.sum with no axis), stable."""
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - np.max(z))
    return e / np.sum(e)
