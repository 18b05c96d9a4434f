# mistake: bptt.uses_current_state


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dA = np.zeros((B, T, H))
    carry = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + carry) * (1.0 - Hs[:, t] ** 2)
        carry = dA[:, t] @ W_h.T
    flat_dA = dA.reshape(B * T, H)
    return {"dX": dA @ W_x.T, "dh0": carry, "dW_x": X.reshape(B * T, d).T @ flat_dA,
            "dW_h": Hs.reshape(B * T, H).T @ flat_dA, "db": flat_dA.sum(axis=0)}
