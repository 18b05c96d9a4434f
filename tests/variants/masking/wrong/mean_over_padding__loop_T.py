"""masking.mean_over_padding in a loop: the valid states summed, the sum divided by T for every row."""
import numpy as np


def masked_mean_pool(Hs, lengths):
    B, T, H = Hs.shape
    out = np.zeros((B, H))
    for i in range(B):
        for t in range(int(lengths[i])):
            out[i] += Hs[i, t]
    return out / T
