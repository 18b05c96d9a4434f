# correct code written another way: full marks, no diagnosis


def clip_by_global_norm(grads, max_norm):
    flat = np.concatenate([np.ravel(np.asarray(g, dtype=float)) for g in grads.values()])
    total = float(np.linalg.norm(flat))
    factor = max_norm / total if total > max_norm else 1.0
    return {name: np.multiply(g, factor) for name, g in grads.items()}, total
