"""masking.ce_per_sequence_mean: one loss per sequence (its own mean), averaged over the sequences."""
import math


def masked_cross_entropy(logits, targets, lengths):
    losses = []
    for row, tgt, L in zip(logits, targets, lengths):
        L = int(L)
        if L == 0:
            continue
        token_losses = []
        for t in range(L):
            z = row[t]
            m = float(z.max())
            lse = m + math.log(sum(math.exp(float(v) - m) for v in z))
            token_losses.append(lse - float(z[int(tgt[t])]))
        losses.append(sum(token_losses) / L)
    return sum(losses) / len(losses) if losses else 0.0
