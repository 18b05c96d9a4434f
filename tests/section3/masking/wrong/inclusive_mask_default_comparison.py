# mistake: masking.inclusive_mask


def sequence_mask(lengths, T, compare=np.less_equal):
    # the mistake only in a default argument
    return compare(np.arange(T)[None, :], np.asarray(lengths)[:, None])
