# right: math.fsum / math.sqrt; under the limit the new dict shares the (unchanged) arrays

def clip_by_global_norm(grads, max_norm):
    total = math.sqrt(math.fsum(float(v) ** 2 for g in grads.values() for v in np.ravel(g)))
    if total > max_norm:
        return {k: np.multiply(g, max_norm / total) for k, g in grads.items()}, total
    return {k: g for k, g in grads.items()}, total
