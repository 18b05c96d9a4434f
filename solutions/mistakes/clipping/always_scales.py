"""The arrays are always rescaled to norm max_norm, even when they were already under the limit."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total_norm = float(np.sqrt(sum(np.vdot(g, g) for g in grads.values())))
    scale = max_norm / (total_norm + 1e-12)
    return {k: g * scale for k, g in grads.items()}, total_norm
