# mistake: bptt.uses_current_state


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    nxt = np.zeros((B, H))
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + nxt) * (1.0 - Hs[:, t] ** 2)
        nxt = dA[:, t] @ W_h.T
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": nxt, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", Hs, dA), "db": np.einsum("bth->h", dA)}
