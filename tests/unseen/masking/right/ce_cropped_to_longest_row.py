# right: mask built with lengths.max() instead of T, logits cropped to match: right

def masked_cross_entropy(logits, targets, lengths):
    lengths = np.asarray(lengths)
    L = int(lengths.max()) if lengths.size else 0
    if L == 0:
        return 0.0
    mask = sequence_mask(lengths, L)                  # the columns after the longest row are all padding
    z = logits[:, :L][mask]
    t = np.asarray(targets)[:, :L][mask]
    logp = z - z.max(axis=1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=1, keepdims=True))
    return float(-np.mean(logp[np.arange(len(t)), t]))
