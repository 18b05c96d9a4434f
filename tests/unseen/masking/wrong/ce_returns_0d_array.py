# wrong: returns a 0-d ndarray instead of a Python float

def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])
    if not mask.any():
        return np.array(0.0)
    logp = log_softmax(logits[mask], axis=-1)
    t = np.asarray(targets)[mask]
    return np.array(-logp[np.arange(len(t)), t].mean())
