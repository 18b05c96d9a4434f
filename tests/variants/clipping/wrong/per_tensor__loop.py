"""clipping.per_tensor: each array scaled by its own norm; the total norm still over everything."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(float(np.sum(g ** 2)) for g in grads.values())))
    out = {}
    for k, g in grads.items():
        n = np.linalg.norm(g)
        out[k] = g * (max_norm / n) if n > max_norm else g.copy()
    return out, total
