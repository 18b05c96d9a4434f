# wrong: the input projection X @ W_x for all steps is stored in float32 ("it is big")

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    A = (X @ W_x).astype(np.float32)
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(A[:, t] + h @ W_h + b)
        Hs[:, t] = h
    return Hs
