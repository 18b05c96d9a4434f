# mistake: masking.inclusive_mask


def sequence_mask(lengths, T):
    return np.less_equal.outer(np.arange(T), np.asarray(lengths)).T


def masked_cross_entropy(logits, targets, lengths):
    # the loss counts its own (right) positions; the forward pass and the pooling use sequence_mask
    B, T, V = logits.shape
    total, count = 0.0, 0
    for i in range(B):
        for t in range(min(int(lengths[i]), T)):
            z = logits[i, t]
            total += np.logaddexp.reduce(z) - z[int(targets[i, t])]
            count += 1
    return float(total / count) if count else 0.0
