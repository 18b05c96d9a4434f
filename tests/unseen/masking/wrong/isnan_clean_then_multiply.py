# wrong: cleans only NaN, then freezes by multiplying: +/-inf padding gives inf - inf = NaN, and NaN * 0 leaks

def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    m = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)[:, :, None]
    Xc = np.where(np.isnan(X), 0.0, X)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    with np.errstate(all="ignore"):
        for t in range(T):
            h_new = np.tanh(Xc[:, t] @ W_x + h @ W_h + b)
            h = m[:, t] * h_new + (1.0 - m[:, t]) * h
            Hs[:, t] = m[:, t] * h_new
    return Hs, h
