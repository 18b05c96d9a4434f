# mistake: masking.padding_in_loss


def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    mask = sequence_mask(lengths, T)
    tgt = np.where(mask, targets, 0)
    lse = np.logaddexp.reduce(logits, axis=-1)
    picked = logits[np.arange(B)[:, None], np.arange(T)[None, :], tgt]
    nll = np.where(mask, lse - picked, 0.0)
    return float(nll.sum() / mask.size)      # every position in the count
