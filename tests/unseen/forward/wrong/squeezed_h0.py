# wrong only when H == 1, B > 1 and h0 is given: np.squeeze(h0) makes it (B,) and the matmul fails

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.squeeze(np.asarray(h0))   # "accept (H,) or (B, H)"
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
