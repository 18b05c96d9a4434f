"""readout.wrong_default_axis: axis=None stands for axis 0 (the student thought of columns)."""
import numpy as np


def softmax(z, axis=None):
    if axis is None:
        axis = 0
    m = np.amax(z, axis=axis, keepdims=True)
    e = np.exp(z - m)
    return e / np.sum(e, axis=axis, keepdims=True)
