"""clipping.in_place: np.multiply(g, factor, out=g) on each array, and the caller's dict handed back."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    norm = np.sqrt(np.sum([np.vdot(g, g) for g in grads.values()]))
    if norm > max_norm:
        for g in grads.values():
            np.multiply(g, max_norm / norm, out=g)
    return grads, float(norm)
