# wrong: tests the SUM OF SQUARES against max_norm: for sqrt(max_norm) < norm < max_norm it scales UP

def clip_by_global_norm(grads, max_norm):
    sq = sum(float(np.sum(g * g)) for g in grads.values())
    total = math.sqrt(sq)
    if sq > max_norm:
        return {k: g * (max_norm / total) for k, g in grads.items()}, total
    return {k: g.copy() for k, g in grads.items()}, total
