"""Each array is clipped by its own norm instead of the global norm of all arrays together."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total_norm = float(np.sqrt(sum(float(np.sum(g ** 2)) for g in grads.values())))
    clipped = {}
    for name, g in grads.items():
        n = np.linalg.norm(g)
        clipped[name] = g * (max_norm / n) if n > max_norm else g.copy()
    return clipped, total_norm
