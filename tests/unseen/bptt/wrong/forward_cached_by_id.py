# wrong: caches the forward states on id(X); a new X that reuses the id gets old states

_states = {}
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    if id(X) not in _states:
        _states[id(X)] = rnn_forward(X, W_x, W_h, b, h0)
    Hs = _states[id(X)]
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
