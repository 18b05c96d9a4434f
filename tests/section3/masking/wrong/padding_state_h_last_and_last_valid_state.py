# mistake: masking.padding_state


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # Hs right (frozen state, zeros at padding), but h_last read at array position T-1
    B, T, _ = X.shape
    mask = sequence_mask(lengths, T)
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        keep = mask[:, t, None]
        h = np.where(keep, rnn_step(np.where(keep, X[:, t], 0.0), h, W_x, W_h, b), h)
        Hs[:, t] = np.where(keep, h, 0.0)
    return Hs, Hs[:, -1].copy()


def last_valid_state(Hs, lengths):
    T = Hs.shape[1]
    return np.array([row[T - 1] for row in Hs])
