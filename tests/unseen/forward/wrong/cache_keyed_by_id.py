# wrong: memoises the result on id(X); a new X that reuses a freed id gets an old answer

_seen = {}
def rnn_forward(X, W_x, W_h, b, h0=None):
    key = id(X)
    if key not in _seen:
        B, T, _ = X.shape
        h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
        Hs = np.zeros((B, T, W_h.shape[0]))
        for t in range(T):
            h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
            Hs[:, t] = h
        _seen[key] = Hs
    return _seen[key].copy()
