# wrong: T // k chunks: the last, shorter chunk is dropped (and nothing at all when k > T)

def _states(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    return h0, Hs, np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)

def _grads(X, W_x, W_h, H_prev, dA, dh0):
    return {"dX": dA @ W_x.T, "dh0": dh0, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}

def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _states(X, W_x, W_h, b, h0)
    T = X.shape[1]
    dA = np.zeros_like(Hs)
    dh0 = np.zeros_like(h0)
    for c in range(T // k):
        dh = np.zeros_like(h0)
        for t in range((c + 1) * k - 1, c * k - 1, -1):
            dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
            dh = dA[:, t] @ W_h.T
        if c == 0:
            dh0 = dh
    return _grads(X, W_x, W_h, H_prev, dA, dh0)
