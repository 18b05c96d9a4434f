# right: the loop stops at lengths.max(): later steps are padding for every row

def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(int(lengths.max()) if B else 0):   # nothing is valid beyond the longest row
        v = (lengths > t)[:, None]
        h_new = np.tanh(np.where(v, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(v, h_new, h)
        Hs[:, t] = np.where(v, h_new, 0.0)
    return Hs, h
