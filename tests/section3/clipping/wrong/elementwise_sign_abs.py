# mistake: clipping.elementwise


def clip_by_global_norm(grads, max_norm):
    total = np.linalg.norm(np.concatenate([np.ravel(g) for g in grads.values()]))
    return {k: np.sign(g) * np.minimum(np.abs(g), max_norm) for k, g in grads.items()}, float(total)
