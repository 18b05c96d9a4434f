# wrong: sq = instead of sq += : only the last array enters the norm

def clip_by_global_norm(grads, max_norm):
    sq = 0.0
    for g in grads.values():
        sq = np.sum(g ** 2)                 # = instead of +=: only the last array counts
    total = float(np.sqrt(sq))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total
