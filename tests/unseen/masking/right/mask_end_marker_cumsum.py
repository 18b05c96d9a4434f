# right: a 1 at position L of a (B, T + 1) array, cumsum == 0, first T columns

def sequence_mask(lengths, T):
    lengths = np.asarray(lengths)
    marks = np.zeros((len(lengths), T + 1), dtype=np.int64)
    marks[np.arange(len(lengths)), lengths] = 1
    return (np.cumsum(marks, axis=1) == 0)[:, :T]
