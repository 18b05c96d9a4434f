# wrong: np.linalg.norm(g, 2) is the spectral norm for a matrix, not the L2 norm of its entries

def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.linalg.norm(g, 2) ** 2 for g in grads.values())))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total
