"""sgd_step updates the parameters in place (params[k] -= lr * g) and returns the caller's dict."""
import numpy as np


def sgd_step(params, grads, lr, max_norm=None):
    used = {"d" + k: grads["d" + k] for k in params}
    if max_norm is not None:
        used, _ = clip_by_global_norm(used, max_norm)
    for k in params:
        params[k] -= lr * used["d" + k]
    return params
