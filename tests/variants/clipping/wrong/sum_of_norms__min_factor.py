"""clipping.sum_of_norms: np.sum of the per-array norms, and a factor min(1, max_norm / total)."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total = float(np.sum([np.linalg.norm(np.ravel(g)) for g in grads.values()]))
    factor = min(1.0, max_norm / total) if total > 0 else 1.0
    return {k: factor * np.asarray(g, dtype=float) for k, g in grads.items()}, total
