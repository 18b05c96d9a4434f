# wrong: PyTorch ignore_index habit: targets >= 0 decide which positions count, lengths unused

def masked_cross_entropy(logits, targets, lengths):
    # PyTorch habit: ignore_index=-1 decides which positions count, lengths are not used
    targets = np.asarray(targets)
    valid = targets >= 0
    if not valid.any():
        return 0.0
    logp = log_softmax(np.where(valid[..., None], logits, 0.0), axis=-1)
    t = np.where(valid, targets, 0)
    nll = -np.take_along_axis(logp, t[..., None], axis=-1)[..., 0]
    return float(nll[valid].mean())
