# mistake: tinyrnn.in_place_update
# in place with np.subtract(out=...), a new dict of the caller's (changed) arrays
# base: right/einsum.py (these definitions are appended to it, replacing its own)

def sgd_step(params, grads, lr, max_norm=None):
    chosen = {name: grads["d" + name] for name in params}
    if max_norm is not None:
        chosen, _ = clip_by_global_norm(chosen, max_norm)
    for name in params:
        np.subtract(params[name], lr * chosen[name], out=params[name])
    return dict(params)
