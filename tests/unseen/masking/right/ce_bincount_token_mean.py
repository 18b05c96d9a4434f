# right: log-sum-exp per token, per-row sums with np.bincount, divided by lengths.sum()

def masked_cross_entropy(logits, targets, lengths):
    lengths = np.asarray(lengths)
    B, T, V = logits.shape
    mask = sequence_mask(lengths, T)
    n = int(lengths.sum())
    if n == 0:
        return 0.0
    z = logits[mask]
    lse = np.logaddexp.reduce(z, axis=-1)
    t = np.asarray(targets)[mask]
    rows = np.bincount(np.repeat(np.arange(B), lengths), weights=lse - z[np.arange(n), t], minlength=B)
    return float(rows.sum() / n)
