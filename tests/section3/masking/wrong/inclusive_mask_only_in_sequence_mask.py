# mistake: masking.inclusive_mask


def _real(lengths, T):
    return np.arange(T)[None, :] < np.asarray(lengths, dtype=int)[:, None]


def sequence_mask(lengths, T):
    # the only wrong function: one position too many per row (the others use _real)
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T), dtype=bool)
    for i, n in enumerate(lengths):
        mask[i, :n + 1] = True
    return mask


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    valid = _real(lengths, T)
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        v = valid[:, t, None]
        h = np.where(v, np.tanh(np.where(v, X[:, t], 0.0) @ W_x + h @ W_h + b), h)
        Hs[:, t] = np.where(v, h, 0.0)
    return Hs, h


def masked_mean_pool(Hs, lengths):
    valid = _real(lengths, Hs.shape[1])
    total = np.where(valid[..., None], Hs, 0.0).sum(axis=1)
    return total / np.maximum(valid.sum(axis=1), 1)[:, None]


def masked_cross_entropy(logits, targets, lengths):
    valid = _real(lengths, logits.shape[1])
    if not valid.any():
        return 0.0
    z = logits[valid]
    t = np.asarray(targets)[valid].astype(int)
    m = z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return float(np.mean(lse - z[np.arange(len(t)), t]))
