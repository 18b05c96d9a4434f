"""np.clip(g, -max_norm, max_norm) on the values, which changes the direction of the gradient."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total_norm = np.sqrt(sum(np.sum(g * g) for g in grads.values()))
    clipped = {k: np.clip(g, -max_norm, max_norm) for k, g in grads.items()}
    return clipped, float(total_norm)
