"""readout.unstable_softmax: np.exp of the logits as they are, divided by their sum (no shift)."""
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    return np.exp(z) / np.exp(z).sum(axis=axis, keepdims=True)
