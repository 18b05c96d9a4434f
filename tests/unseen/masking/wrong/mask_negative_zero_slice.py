# wrong: clears the padding with a negative slice; for lengths[i] == T, "-0:" clears the whole row

def sequence_mask(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.ones((len(lengths), T), dtype=bool)
    for i, L in enumerate(lengths):
        mask[i, -(T - L):] = False
    return mask
