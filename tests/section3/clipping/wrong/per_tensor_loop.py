# mistake: clipping.per_tensor


def clip_by_global_norm(grads, max_norm):
    squares = 0.0
    clipped = {}
    for key in grads:
        g = np.asarray(grads[key], dtype=float)
        n = float(np.sqrt(np.sum(g * g)))
        squares += n * n
        clipped[key] = g * (max_norm / n) if n > max_norm else g.copy()
    return clipped, float(np.sqrt(squares))
