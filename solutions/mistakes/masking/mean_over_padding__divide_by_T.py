"""Only valid states are summed, but the sum is divided by T instead of each row's length."""
import numpy as np


def masked_mean_pool(Hs, lengths):
    B, T, H = Hs.shape
    out = np.zeros((B, H))
    for i in range(B):
        out[i] = Hs[i, :lengths[i]].sum(axis=0) / T
    return out
