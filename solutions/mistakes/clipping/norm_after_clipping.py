"""The returned norm is measured after clipping instead of before."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    norm = np.sqrt(sum(np.sum(g ** 2) for g in grads.values()))
    scale = min(1.0, max_norm / norm) if norm > 0 else 1.0
    clipped = {k: g * scale for k, g in grads.items()}
    new_norm = np.sqrt(sum(np.sum(g ** 2) for g in clipped.values()))
    return clipped, float(new_norm)
