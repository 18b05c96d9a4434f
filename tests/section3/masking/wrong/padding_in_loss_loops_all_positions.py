# mistake: masking.padding_in_loss


def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    total = 0.0
    for i in range(B):
        for t in range(T):
            z = logits[i, t]
            m = z.max()
            total += m + np.log(np.exp(z - m).sum()) - z[targets[i, t]]
    return float(total / (B * T))
