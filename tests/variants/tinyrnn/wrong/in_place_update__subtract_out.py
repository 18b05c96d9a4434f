"""tinyrnn.in_place_update: np.subtract(p, lr * g, out=p) for every parameter, then a dict of those same arrays."""
import numpy as np

from bptt import clip_by_global_norm


def sgd_step(params, grads, lr, max_norm=None):
    used = {"d" + k: grads["d" + k] for k in params}
    if max_norm is not None:
        used = clip_by_global_norm(used, max_norm)[0]
    for name in params:
        np.subtract(params[name], lr * used["d" + name], out=params[name])
    return {name: params[name] for name in params}
