# mistake: bptt.last_step_only


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start)
    prev = np.concatenate([start[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    back = np.zeros((B, H))
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + back) * (1.0 - Hs[:, t] ** 2)
        back = dA[:, t] @ W_h.T
    # the parameter gradients of the last step only
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": back,
            "dW_x": X[:, -1].T @ dA[:, -1], "dW_h": prev[:, -1].T @ dA[:, -1], "db": dA[:, -1].sum(axis=0)}
