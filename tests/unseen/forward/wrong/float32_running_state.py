# wrong: the running state is rounded to float32 at every step (result dtype stays float64)

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H), dtype=np.float32) if h0 is None else h0.astype(np.float32)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b).astype(np.float32)
        Hs[:, t] = h
    return Hs
