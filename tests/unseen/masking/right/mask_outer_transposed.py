# right: np.less.outer, transposed (an F-ordered bool array)

def sequence_mask(lengths, T):
    return np.less.outer(np.arange(T), np.asarray(lengths)).T
