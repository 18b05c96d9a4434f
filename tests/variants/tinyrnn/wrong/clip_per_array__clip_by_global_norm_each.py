"""tinyrnn.clip_per_array: clip_by_global_norm called on a one-entry dict per gradient, so each is clipped alone."""
from bptt import clip_by_global_norm


def sgd_step(params, grads, lr, max_norm=None):
    new = {}
    for k in params:
        g = {"d" + k: grads["d" + k]}
        if max_norm is not None:
            g, _ = clip_by_global_norm(g, max_norm)
        new[k] = params[k] - lr * g["d" + k]
    return new
