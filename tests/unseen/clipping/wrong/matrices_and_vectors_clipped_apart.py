# wrong: matrices and vectors clipped as two separate groups

def clip_by_global_norm(grads, max_norm):
    out = {}
    for group in ([k for k in grads if np.ndim(grads[k]) > 1], [k for k in grads if np.ndim(grads[k]) <= 1]):
        n = float(np.sqrt(sum(np.sum(grads[k] ** 2) for k in group)))
        for k in group:
            out[k] = grads[k] * (max_norm / n if n > max_norm else 1.0)
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    return out, total
