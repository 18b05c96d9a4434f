# mistake: clipping.per_tensor


def clip_by_global_norm(grads, max_norm):
    norms = {k: np.linalg.norm(np.ravel(g)) for k, g in grads.items()}
    total = float(np.linalg.norm(np.array(list(norms.values()))))
    clipped = {k: g * min(1.0, max_norm / max(norms[k], 1e-300)) for k, g in grads.items()}
    return clipped, total
