"""sgd_step clips each gradient array by its own norm instead of all of them by their global norm."""
import numpy as np


def sgd_step(params, grads, lr, max_norm=None):
    new = {}
    for k in params:
        g = grads["d" + k]
        if max_norm is not None:
            n = np.linalg.norm(g)
            if n > max_norm:
                g = g * (max_norm / n)
        new[k] = params[k] - lr * g
    return new
