# wrong: crashes (ZeroDivisionError) on an all-zero gradient, which must come back unchanged

def clip_by_global_norm(grads, max_norm):
    total = math.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))
    scale = min(1.0, max_norm / total)
    return {k: g * scale for k, g in grads.items()}, total
