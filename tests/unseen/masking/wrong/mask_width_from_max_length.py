# wrong only when every row is padded: the mask is lengths.max() wide, T is ignored

def sequence_mask(lengths, T):
    lengths = np.asarray(lengths)
    return np.arange(lengths.max())[None, :] < lengths[:, None]     # T ignored
