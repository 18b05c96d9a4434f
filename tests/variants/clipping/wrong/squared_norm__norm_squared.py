"""clipping.squared_norm: np.linalg.norm of everything, squared (as in an L2 penalty)."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    flat = np.concatenate([g.reshape(-1) for g in grads.values()])
    total = float(np.linalg.norm(flat) ** 2)
    clipped = {}
    for name in grads:
        clipped[name] = grads[name] * (max_norm / total if total > max_norm else 1.0)
    return clipped, total
