# mistake: clipping.per_tensor


def clip_by_global_norm(grads, max_norm, per_array=True):
    # the mistake only in a default argument
    total = float(np.sqrt(sum(np.vdot(g, g) for g in grads.values())))
    out = {}
    for k, g in grads.items():
        n = float(np.sqrt(np.vdot(g, g))) if per_array else total
        out[k] = g * (max_norm / n) if n > max_norm else np.array(g, dtype=float)
    return out, total
