# mistake: masking.inclusive_mask


def sequence_mask(lengths, T):
    return ~(np.arange(T)[None, :] > np.asarray(lengths)[:, None])
