# right: nested Python lists of bools from int() lengths, then np.array

def sequence_mask(lengths, T):
    rows = [[t < n for t in range(int(T))] for n in map(int, list(lengths))]
    return np.array(rows, dtype=bool).reshape(len(rows), int(T))
