"""clipping.squared_norm: the sum of np.vdot(g, g), with no square root, used as the norm."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    sq = float(sum(np.vdot(g, g) for g in grads.values()))
    if sq <= max_norm:
        return {k: g.copy() for k, g in grads.items()}, sq
    return {k: g * (max_norm / sq) for k, g in grads.items()}, sq
