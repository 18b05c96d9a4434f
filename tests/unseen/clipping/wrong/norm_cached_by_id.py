# wrong: remembers the norm of each dict by id(); a new dict that reuses the id gets an old norm

_norms = {}
def clip_by_global_norm(grads, max_norm):
    if id(grads) not in _norms:
        _norms[id(grads)] = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    total = _norms[id(grads)]
    scale = max_norm / total if total > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total
