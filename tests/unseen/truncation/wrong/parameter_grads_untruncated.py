# wrong: dX and dh0 truncated, but the parameter gradients taken from the full BPTT

def _fwd(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    return h0, Hs, np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)

def _grads(X, W_x, H_prev, dA, dh0):
    return {"dX": dA @ W_x.T, "dh0": dh0, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}

def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0_, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0_)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
        if t % k == 0 and t > 0:
            dh = np.zeros_like(h0_)
    grads = _grads(X, W_x, H_prev, dA, dh)
    full = rnn_backward(X, W_x, W_h, b, dHs, h0)          # "the weights should still see everything"
    grads.update(dW_x=full["dW_x"], dW_h=full["dW_h"], db=full["db"])
    return grads
