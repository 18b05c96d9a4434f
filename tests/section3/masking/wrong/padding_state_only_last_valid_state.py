# mistake: masking.padding_state


def last_valid_state(Hs, lengths):
    # the only wrong function of masking.py: the state at array position T-1 for every row
    return np.take(Hs, Hs.shape[1] - 1, axis=1)
