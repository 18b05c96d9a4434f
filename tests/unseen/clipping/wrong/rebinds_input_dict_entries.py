# wrong: writes the scaled arrays back into the caller's dict

def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    if total > max_norm:
        for k in list(grads):
            grads[k] = grads[k] * (max_norm / total)
    return dict(grads), total
