# wrong: pooled sum divided with // (floor division)

def masked_mean_pool(Hs, lengths):
    lengths = np.asarray(lengths)
    m = sequence_mask(lengths, Hs.shape[1])
    total = np.where(m[..., None], Hs, 0.0).sum(axis=1)
    return total // np.maximum(lengths, 1)[:, None]      # // out of integer habit
