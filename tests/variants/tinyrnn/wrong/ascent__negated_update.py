"""tinyrnn.ascent: the update is written as -lr * g and then subtracted, a sign too many."""
from bptt import clip_by_global_norm


def sgd_step(params, grads, lr, max_norm=None):
    g = {"d" + k: grads["d" + k] for k in params}
    if max_norm is not None:
        g, _ = clip_by_global_norm(g, max_norm)
    update = {k: -lr * g["d" + k] for k in params}
    return {k: params[k] - update[k] for k in params}
