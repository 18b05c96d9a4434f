"""clipping.per_tensor with a comprehension and np.minimum of the scale factors."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    norms = {k: np.sqrt(np.sum(np.square(v))) for k, v in grads.items()}
    total = np.sqrt(sum(n ** 2 for n in norms.values()))
    return {k: v * np.minimum(1.0, max_norm / max(norms[k], 1e-300)) for k, v in grads.items()}, float(total)
