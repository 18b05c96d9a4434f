# mistake: tinyrnn.ascent
# the step added after a hand-written global clipping
# base: right/time_major.py (these definitions are appended to it, replacing its own)

def sgd_step(params, grads, lr, max_norm=None):
    keys = list(params)
    gs = [np.asarray(grads["d" + k], dtype=np.float64) for k in keys]
    factor = 1.0
    if max_norm is not None:
        norm = np.linalg.norm(np.concatenate([g.ravel() for g in gs]))
        if norm > max_norm:
            factor = max_norm / norm
    return {k: np.add(params[k], lr * factor * g) for k, g in zip(keys, gs)}
