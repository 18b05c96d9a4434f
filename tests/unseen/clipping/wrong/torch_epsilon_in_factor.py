# wrong: torch's max_norm / (total + 1e-6), clamped at 1

def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(g * g) for g in grads.values())))
    coef = min(max_norm / (total + 1e-6), 1.0)            # torch.nn.utils.clip_grad_norm_ habit
    return {k: g * coef for k, g in grads.items()}, total
