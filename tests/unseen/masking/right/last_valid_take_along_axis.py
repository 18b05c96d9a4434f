# right: take_along_axis for the last valid state

def last_valid_state(Hs, lengths):
    lengths = np.asarray(lengths)
    if Hs.shape[1] == 0:
        return np.zeros((Hs.shape[0], Hs.shape[2]))
    idx = np.clip(lengths - 1, 0, None)[:, None, None]
    picked = np.take_along_axis(Hs, idx, axis=1)[:, 0]
    return np.where((lengths > 0)[:, None], picked, 0.0)
