# wrong: 1-D arrays are left out of the norm and not scaled

def clip_by_global_norm(grads, max_norm):
    # "biases are not clipped": 1-D arrays stay out of the norm and are returned as they are
    mats = {k: g for k, g in grads.items() if np.ndim(g) > 1}
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in mats.values())))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: (g * scale if k in mats else g.copy()) for k, g in grads.items()}, total
