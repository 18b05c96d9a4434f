"""The arrays are scaled in place (grads[k] *= scale) and the input dict is returned, so the caller's gradients change."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total_norm = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    if total_norm > max_norm:
        scale = max_norm / total_norm
        for k in grads:
            grads[k] *= scale
    return grads, total_norm
