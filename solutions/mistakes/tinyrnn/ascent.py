"""sgd_step adds the gradient: a step up the loss instead of down."""
import numpy as np


def sgd_step(params, grads, lr, max_norm=None):
    used = {"d" + k: grads["d" + k] for k in params}
    if max_norm is not None:
        used, _ = clip_by_global_norm(used, max_norm)
    return {k: params[k] + lr * used["d" + k] for k in params}
