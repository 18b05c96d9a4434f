# wrong: returns the int 0 (not the float 0.0) when no position is valid

def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])
    n = int(mask.sum())
    if n == 0:
        return 0
    logp = log_softmax(logits[mask], axis=-1)
    t = np.asarray(targets)[mask]
    return float(-logp[np.arange(n), t].sum() / n)
