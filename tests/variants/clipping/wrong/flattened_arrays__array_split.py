"""clipping.flattened_arrays: np.hstack of the raveled arrays, scaled, cut back with offsets (1-D pieces)."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    names = list(grads.keys())
    vec = np.hstack([grads[n].ravel() for n in names])
    total = float(np.sqrt(vec @ vec))
    if total > max_norm:
        vec = vec * max_norm / total
    out, start = {}, 0
    for n in names:
        size = grads[n].size
        out[n] = vec[start:start + size]
        start += size
    return out, total
