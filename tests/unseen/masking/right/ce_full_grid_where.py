# right: the loss on the full grid (targets clipped), padding removed by np.where; np.float64 out

def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    mask = sequence_mask(lengths, T)
    z = np.where(mask[..., None], logits, 0.0)
    logp = z - np.max(z, axis=-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=-1, keepdims=True))
    t = np.clip(np.asarray(targets), 0, V - 1)
    nll = -np.take_along_axis(logp, t[..., None], axis=-1)[..., 0]
    n = mask.sum()
    return np.where(mask, nll, 0.0).sum() / n if n else 0.0
