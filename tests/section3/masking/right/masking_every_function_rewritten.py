# correct code written another way: full marks, no diagnosis


def sequence_mask(lengths, T):
    return np.greater.outer(np.asarray(lengths, dtype=np.int64), np.arange(T))


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # each row run alone over its valid steps only
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    h_last = np.zeros((B, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        for t in range(int(lengths[i])):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            Hs[i, t] = h
        h_last[i] = h
    return Hs, h_last


def last_valid_state(Hs, lengths):
    lengths = np.asarray(lengths)
    B, T, H = Hs.shape
    if T == 0:
        return np.zeros((B, H))
    index = np.clip(lengths - 1, 0, T - 1)[:, None, None]
    picked = np.take_along_axis(Hs, index, axis=1)[:, 0]       # (B, 1, H) -> (B, H)
    return np.where(lengths[:, None] > 0, picked, 0.0)


def masked_mean_pool(Hs, lengths):
    B, T, H = Hs.shape
    out = np.zeros((B, H))
    for i in range(B):
        n = int(lengths[i])
        if n > 0:
            out[i] = Hs[i, :n].mean(axis=0)
    return out


def masked_cross_entropy(logits, targets, lengths):
    valid = sequence_mask(lengths, logits.shape[1])
    count = int(valid.sum())
    if count == 0:
        return 0.0
    z = logits[valid]
    t = np.asarray(targets)[valid].astype(np.int64)
    lse = np.logaddexp.reduce(z, axis=1)
    return float((lse - z[np.arange(count), t]).sum() / count)
