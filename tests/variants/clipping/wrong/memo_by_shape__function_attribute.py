"""clipping.memo_by_shape: a scale remembered on the function, keyed on the names and sizes as text."""
import numpy as np


def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(np.square(g)) for g in grads.values())))
    memo = clip_by_global_norm.__dict__.setdefault("memo", {})
    key = ";".join(f"{name}:{'x'.join(map(str, np.shape(g)))}" for name, g in grads.items())
    scale = memo.setdefault(key, max_norm / total if total > max_norm else 1.0)
    return {name: np.asarray(g) * scale for name, g in grads.items()}, total
