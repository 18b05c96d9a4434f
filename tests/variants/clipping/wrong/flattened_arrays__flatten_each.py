"""clipping.flattened_arrays: each array is flattened once at the start (g.flatten()) and never reshaped."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    flat = {k: np.asarray(g, dtype=float).flatten() for k, g in grads.items()}
    total = float(np.sqrt(sum(np.dot(v, v) for v in flat.values())))
    if total > max_norm:
        flat = {k: v * (max_norm / total) for k, v in flat.items()}
    return flat, total
