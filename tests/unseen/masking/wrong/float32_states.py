# wrong: stores the states in a float32 buffer

def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    mask = sequence_mask(lengths, T)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H), dtype=np.float32)
    for t in range(T):
        v = mask[:, t, None]
        h_new = np.tanh(np.where(v, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(v, h_new, h)
        Hs[:, t] = np.where(v, h_new, 0.0)
    return Hs, h
