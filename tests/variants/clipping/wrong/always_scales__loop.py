"""clipping.always_scales: the factor max_norm / total is applied in a loop whatever total is."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    squares = [float(np.square(g).sum()) for g in grads.values()]
    total = np.sqrt(np.sum(squares))
    factor = max_norm / max(total, 1e-12)
    new = {}
    for name, g in grads.items():
        new[name] = np.multiply(g, factor)
    return new, float(total)
