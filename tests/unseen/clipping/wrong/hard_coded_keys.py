# wrong: only knows the names of rnn_backward's parameter gradients

def clip_by_global_norm(grads, max_norm):
    names = [k for k in ("dX", "dh0", "dW_x", "dW_h", "db") if k in grads]
    total = float(np.sqrt(sum(np.sum(grads[k] ** 2) for k in names)))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: grads[k] * scale for k in names}, total
