# wrong: a sliding window (every loss term travels back at most k steps) instead of fixed chunks

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
    for s in range(T):
        dh = dHs[:, s]
        for t in range(s, max(s - k, -1), -1):
            da = dh * (1 - Hs[:, t] ** 2)
            dA[:, t] += da
            dh = da @ W_h.T
            if t == 0:
                dh0 += dh
    return _grads(X, W_x, W_h, H_prev, dA, dh0)
