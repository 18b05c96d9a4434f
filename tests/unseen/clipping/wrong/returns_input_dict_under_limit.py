# wrong: under the limit it hands back the caller's own dict (the contract wants a new dict)

def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    if total <= max_norm:
        return grads, total
    return {k: g * (max_norm / total) for k, g in grads.items()}, total
