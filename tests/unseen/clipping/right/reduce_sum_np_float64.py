# right: functools.reduce over np.vdot, total returned as np.float64

import functools
def clip_by_global_norm(grads, max_norm):
    total = np.sqrt(functools.reduce(lambda acc, g: acc + np.vdot(g, g), grads.values(), 0.0))
    out = {}
    for k in grads:
        out[k] = grads[k] * (max_norm / total) if total > max_norm else grads[k] + 0.0
    return out, np.float64(total)
