# wrong: range(T - 1, 0, -1): step 0 is never visited

def _fwd(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    return h0, Hs, np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)

def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    T = X.shape[1]
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in range(T - 1, 0, -1):        # step 0 is never visited
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
