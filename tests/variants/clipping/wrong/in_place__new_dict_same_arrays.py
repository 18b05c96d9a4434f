"""clipping.in_place: a new dict is built, but each array was scaled in place first (g *= s), always,
with s = 1 when under the limit."""


def clip_by_global_norm(grads, max_norm):
    total = 0.0
    for g in grads.values():
        total += (g ** 2).sum()
    total = total ** 0.5
    s = max_norm / total if total > max_norm else 1.0
    out = {}
    for name, g in grads.items():
        g *= s
        out[name] = g
    return out, float(total)
