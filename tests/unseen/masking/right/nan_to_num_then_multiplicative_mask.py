# right: np.nan_to_num(posinf=neginf=0) first, then masking by multiplication is safe

def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    m = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)[:, :, None]
    Xc = np.nan_to_num(X, nan=0.0, posinf=0.0, neginf=0.0) * m      # every padded value is 0 before any arithmetic
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h_new = np.tanh(Xc[:, t] @ W_x + h @ W_h + b)
        h = m[:, t] * h_new + (1.0 - m[:, t]) * h
        Hs[:, t] = m[:, t] * h_new
    return Hs, h
