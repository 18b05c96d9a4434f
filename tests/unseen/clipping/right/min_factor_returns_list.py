# right: the factor as min(1, max_norm / total) with a guard for a zero gradient; returns a list

def clip_by_global_norm(grads, max_norm):
    total = np.linalg.norm([np.linalg.norm(np.ravel(g)) for g in grads.values()])
    factor = min(1.0, max_norm / total) if total > 0 else 1.0
    return [{k: g * factor for k, g in grads.items()}, total]
