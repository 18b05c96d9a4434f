# mistake: masking.padding_in_loss


def masked_cross_entropy(logits, targets, lengths):
    # only the valid terms summed, but the count is every position of the batch
    B, T, V = logits.shape
    total = 0.0
    for i in range(B):
        for t in range(int(lengths[i])):
            z = logits[i, t]
            top = z.max()
            total += top + np.log(np.sum(np.exp(z - top))) - z[targets[i, t]]
    return float(total) / (B * T)
