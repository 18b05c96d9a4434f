"""All gradients are concatenated into one flat vector and split back without restoring the shapes."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    keys = list(grads)
    flat = np.concatenate([np.ravel(grads[k]) for k in keys])
    total_norm = float(np.linalg.norm(flat))
    if total_norm > max_norm:
        flat = flat * (max_norm / total_norm)
    sizes = np.cumsum([np.size(grads[k]) for k in keys])[:-1]
    pieces = np.split(flat, sizes)
    return dict(zip(keys, pieces)), total_norm
