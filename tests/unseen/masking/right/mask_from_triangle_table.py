# right: the mask as rows of a lower-triangular table indexed by the lengths

def sequence_mask(lengths, T):
    return np.tri(T + 1, T, -1, dtype=bool)[np.asarray(lengths, dtype=int)]
