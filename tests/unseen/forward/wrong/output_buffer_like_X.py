# wrong: Hs allocated with np.zeros_like(X): (B, T, d), right only when d == H

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = np.zeros_like(X)                   # (B, T, d), not (B, T, H)
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
