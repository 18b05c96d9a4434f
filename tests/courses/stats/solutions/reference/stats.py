"""Reference solution of the stats course's `standardize`."""

import numpy as np


def standardize(X, axis=0, eps=1e-8):
    mean = X.mean(axis=axis, keepdims=True)
    std = np.sqrt(((X - mean) ** 2).mean(axis=axis, keepdims=True))
    return (X - mean) / (std + eps)
