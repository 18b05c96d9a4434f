# right: np.ma masked mean, filled with 0 for empty rows

def masked_mean_pool(Hs, lengths):
    m = sequence_mask(lengths, Hs.shape[1])
    pooled = np.ma.masked_array(np.where(m[..., None], Hs, 0.0),
                                mask=np.broadcast_to(~m[..., None], Hs.shape)).mean(axis=1)
    return np.ma.filled(pooled, 0.0).astype(np.float64)
