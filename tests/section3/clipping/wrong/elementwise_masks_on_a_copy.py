# mistake: clipping.elementwise


def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(float((g ** 2).sum()) for g in grads.values())))
    clipped = {}
    for name, g in grads.items():
        c = np.array(g, dtype=float)
        if total > max_norm:                  # only over the limit, then entry by entry
            c[c > max_norm] = max_norm
            c[c < -max_norm] = -max_norm
        clipped[name] = c
    return clipped, total
