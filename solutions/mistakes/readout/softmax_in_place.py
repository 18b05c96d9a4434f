"""softmax works in place on its argument (z -= max; np.exp(z, out=z)), so the caller's logits change."""
import numpy as np


def softmax(z, axis=-1):
    z -= np.max(z, axis=axis, keepdims=True)
    np.exp(z, out=z)
    z /= np.sum(z, axis=axis, keepdims=True)
    return z
