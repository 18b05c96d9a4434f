# wrong: log(p + 1e-12) instead of a log-softmax: wrong for confident logits (1e3)

def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])
    if not mask.any():
        return 0.0
    z = logits[mask]
    z = z - z.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    t = np.asarray(targets)[mask]
    return float(-np.log(p[np.arange(len(t)), t] + 1e-12).mean())
