"""tinyrnn.in_place_update: v -= lr * g over params.items(), the caller's arrays updated and its dict returned."""
import numpy as np


def sgd_step(params, grads, lr, max_norm=None):
    g = {k: grads["d" + k] for k in params}
    if max_norm is not None:
        total = np.sqrt(sum(float(np.sum(v ** 2)) for v in g.values()))
        if total > max_norm:
            g = {k: v * (max_norm / total) for k, v in g.items()}
    for k, v in params.items():
        v -= lr * g[k]
    return params
