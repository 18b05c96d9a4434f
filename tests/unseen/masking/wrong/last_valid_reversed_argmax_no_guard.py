# wrong only for length 0: argmax of the reversed mask gives T-1 for an all-False row

def last_valid_state(Hs, lengths):
    B, T, H = Hs.shape
    m = sequence_mask(lengths, T)
    idx = T - 1 - np.argmax(m[:, ::-1], axis=1)      # last True per row; a row without True gives T-1
    return Hs[np.arange(B), idx]
