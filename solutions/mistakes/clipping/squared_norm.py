"""The square root is forgotten: the 'norm' is the sum of squares."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total = 0.0
    for g in grads.values():
        total += float(np.sum(g ** 2))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total
