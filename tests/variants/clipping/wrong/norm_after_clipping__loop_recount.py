"""clipping.norm_after_clipping: one variable `norm` is measured, the arrays scaled, and the same
variable measured again over the new arrays before it is returned."""
import math

import numpy as np


def clip_by_global_norm(grads, max_norm):
    out = dict(grads)
    norm = math.sqrt(sum(float(np.dot(g.ravel(), g.ravel())) for g in out.values()))
    if norm > max_norm:
        for key in out:
            out[key] = out[key] * (max_norm / norm)
    else:
        out = {key: g.copy() for key, g in out.items()}
    norm = math.sqrt(sum(float(np.dot(g.ravel(), g.ravel())) for g in out.values()))
    return out, norm
