# right: math.hypot of per-array norms, factor max_norm / max(total, max_norm)

def clip_by_global_norm(grads, max_norm):
    total = math.hypot(*(float(np.linalg.norm(np.ravel(g))) for g in grads.values()))
    factor = max_norm / max(total, max_norm)
    return {k: factor * g for k, g in grads.items()}, total
