"""softmax is exp(z) / sum(exp(z)) without subtracting the maximum, which overflows for large logits."""
import numpy as np


def softmax(z, axis=-1):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(z)
        return e / np.sum(e, axis=axis, keepdims=True)
