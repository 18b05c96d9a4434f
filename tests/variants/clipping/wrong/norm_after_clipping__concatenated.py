"""clipping.norm_after_clipping: the norm returned is np.linalg.norm of the clipped arrays put end to end."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    before = np.linalg.norm(np.concatenate([np.ravel(g) for g in grads.values()]))
    factor = max_norm / before if before > max_norm else 1.0
    clipped = {name: np.array(g, dtype=float) * factor for name, g in grads.items()}
    after = np.linalg.norm(np.concatenate([c.ravel() for c in clipped.values()]))
    return clipped, float(after)
