# wrong: every chunk's entering gradient is added into dh0

def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    out = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros_like(W_x),
           "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    for start in range(0, T, k):
        stop = min(start + k, T)
        entering = h0 if start == 0 else Hs[:, start - 1]
        g = rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop], h0=entering)
        out["dX"][:, start:stop] = g["dX"]
        for name in ("dh0", "dW_x", "dW_h", "db"):              # every chunk's entering gradient added to dh0
            out[name] += g[name]
    return out
