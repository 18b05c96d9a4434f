"""The total norm is the sum of the per-array norms, not the L2 norm of all entries together."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total_norm = float(sum(np.linalg.norm(g) for g in grads.values()))
    scale = max_norm / total_norm if total_norm > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total_norm
