"""clipping.elementwise with np.minimum and np.maximum, only when the total norm is over the limit."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total = float(np.linalg.norm(np.concatenate([np.ravel(g) for g in grads.values()])))
    if total <= max_norm:
        return {k: np.array(g, copy=True) for k, g in grads.items()}, total
    return {k: np.maximum(np.minimum(g, max_norm), -max_norm) for k, g in grads.items()}, total
