"""tinyrnn.clip_per_array: a helper clips one gradient array by its own norm, applied to each in turn."""
import numpy as np


def _clipped(g, max_norm):
    size = np.sqrt(np.sum(g * g))
    return g * min(1.0, max_norm / size) if size > 0 else g


def sgd_step(params, grads, lr, max_norm=None):
    out = {}
    for name, value in params.items():
        g = np.asarray(grads["d" + name], dtype=float)
        if max_norm is not None:
            g = _clipped(g, max_norm)
        out[name] = value - lr * g
    return out
