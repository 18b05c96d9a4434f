# wrong: sorted keys zipped with the arrays in insertion order

def clip_by_global_norm(grads, max_norm):
    names = sorted(grads)                   # sorted for a stable order ...
    arrays = list(grads.values())           # ... but the arrays stay in insertion order
    total = float(np.sqrt(sum(np.sum(a ** 2) for a in arrays)))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: a * scale for k, a in zip(names, arrays)}, total
