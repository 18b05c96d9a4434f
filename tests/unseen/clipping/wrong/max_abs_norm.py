# wrong: the infinity norm (largest |entry|) instead of the L2 norm

def clip_by_global_norm(grads, max_norm):
    total = float(max(np.max(np.abs(g)) for g in grads.values()))   # the infinity norm
    scale = max_norm / total if total > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total
