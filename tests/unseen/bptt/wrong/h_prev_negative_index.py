# wrong: h_prev = Hs[:, t - 1] for every t, so at t = 0 it silently takes the LAST state, not h0

def _fwd(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    h = h0
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return h0, Hs

def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    B, T, _ = X.shape
    g = {"dX": np.zeros_like(X), "dW_x": np.zeros_like(W_x), "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    dh = np.zeros_like(h0)
    for t in reversed(range(T)):
        da = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        g["dW_x"] += X[:, t].T @ da
        g["dW_h"] += Hs[:, t - 1].T @ da
        g["db"] += da.sum(0)
        g["dX"][:, t] = da @ W_x.T
        dh = da @ W_h.T
    g["dh0"] = dh
    return g
