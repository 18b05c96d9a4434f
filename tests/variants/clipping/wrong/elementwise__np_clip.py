"""clipping.elementwise: np.clip on the values to [-max_norm, max_norm]."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.vdot(g, g) for g in grads.values())))
    return {k: np.clip(g, -max_norm, max_norm) for k, g in grads.items()}, total
