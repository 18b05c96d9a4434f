"""tinyrnn.ascent: the learning-rate-scaled gradient is added to the parameters (own global clipping)."""
import numpy as np


def sgd_step(params, grads, lr, max_norm=None):
    scale = 1.0
    if max_norm is not None:
        norm = np.sqrt(sum(np.sum(np.square(grads["d" + k])) for k in params))
        if norm > max_norm:
            scale = max_norm / norm
    new = {}
    for k in params:
        new[k] = lr * scale * grads["d" + k] + params[k]
    return new
