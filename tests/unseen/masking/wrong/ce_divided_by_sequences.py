# wrong: summed NLL divided by the number of sequences instead of the number of valid tokens

def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])
    if not mask.any():
        return 0.0
    logp = log_softmax(logits[mask], axis=-1)
    t = np.asarray(targets)[mask]
    return float(-logp[np.arange(len(t)), t].sum() / len(lengths))   # per sequence, not per token
