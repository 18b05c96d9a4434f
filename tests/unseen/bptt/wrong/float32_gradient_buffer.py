# wrong: the pre-activation gradients are kept in a float32 buffer (outputs are still float64)

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
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros(Hs.shape, dtype=np.float32)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    dA = dA.astype(np.float64)
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
