# mistake: tinyrnn.clip_per_array
# each array scaled by max_norm / max(its own norm, max_norm)
# base: right/loops.py (these definitions are appended to it, replacing its own)

def sgd_step(params, grads, lr, max_norm=None):
    new = {}
    for k in params:
        g = np.asarray(grads["d" + k], dtype=float)
        if max_norm is not None:
            own = float(np.sqrt(np.sum(g * g)))
            g = g * (max_norm / max(own, max_norm))
        new[k] = params[k] - lr * g
    return new
