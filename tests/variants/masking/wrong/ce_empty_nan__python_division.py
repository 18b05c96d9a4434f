"""masking.ce_empty_nan: Python floats summed and divided by the count: ZeroDivisionError when it is 0."""
import math


def masked_cross_entropy(logits, targets, lengths):
    total, count = 0.0, 0
    for i, L in enumerate(lengths):
        for t in range(int(L)):
            z = [float(v) for v in logits[i, t]]
            m = max(z)
            total += m + math.log(sum(math.exp(v - m) for v in z)) - z[int(targets[i, t])]
            count += 1
    return total / count
