"""clipping.sum_of_norms: a loop adding np.sqrt(np.sum(g * g)) of each array."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total = 0.0
    for g in grads.values():
        total = total + np.sqrt(np.sum(g * g))
    total = float(total)
    result = {}
    for k, g in grads.items():
        result[k] = g * (max_norm / total) if total > max_norm else np.copy(g)
    return result, total
