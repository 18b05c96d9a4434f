# mistake: clipping.elementwise


def clip_by_global_norm(grads, max_norm):
    total = np.sqrt(np.sum([np.sum(np.square(g)) for g in grads.values()]))
    out = {k: np.minimum(np.maximum(g, -max_norm), max_norm) for k, g in grads.items()}
    return out, float(total)
