# wrong: a new dict, but the arrays in it are the caller's, scaled in place

def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    clipped = dict(grads)
    if total > max_norm:
        for k in clipped:
            clipped[k] *= max_norm / total
    return clipped, total
