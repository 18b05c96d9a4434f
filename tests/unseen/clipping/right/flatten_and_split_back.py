# right: one flat vector, split back and reshaped

def clip_by_global_norm(grads, max_norm):
    keys = list(grads)
    flat = np.concatenate([np.ravel(grads[k]) for k in keys])
    total = float(np.linalg.norm(flat))
    if total > max_norm:
        flat = flat * (max_norm / total)
    pieces = np.split(flat, np.cumsum([np.size(grads[k]) for k in keys])[:-1])
    return {k: p.reshape(np.shape(grads[k])) for k, p in zip(keys, pieces)}, total
