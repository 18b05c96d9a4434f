# right: `>=` instead of `>`: at equality the factor is 1, nothing changes

def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.vdot(g, g) for g in grads.values())))
    if total >= max_norm and total > 0:      # at equality the factor is 1: nothing changes
        return {k: g * (max_norm / total) for k, g in grads.items()}, total
    return {k: np.array(g, dtype=float) for k, g in grads.items()}, total
