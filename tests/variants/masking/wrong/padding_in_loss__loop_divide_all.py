"""masking.padding_in_loss in a loop: only valid positions summed, but divided by B*T, every position."""
import math

import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    total = 0.0
    for i in range(B):
        for t in range(int(lengths[i])):
            row = logits[i, t]
            top = float(np.max(row))
            total += top + math.log(float(np.sum(np.exp(row - top)))) - float(row[int(targets[i][t])])
    return total / (B * T)
