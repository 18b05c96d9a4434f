# wrong, right only when B == 1: h0[0] is tiled over the batch ("one initial state")

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.tile(h0[0], (B, 1))   # "one initial state for the batch"
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
