# right: batch and time flattened into one matrix product per parameter (F-ordered results)

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
    B, T, d = X.shape
    H = W_h.shape[0]
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros((B, T, H))
    dh = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + dh) * (1.0 - Hs[:, t] * Hs[:, t])
        dh = np.dot(dA[:, t], W_h.T)
    A2 = dA.reshape(B * T, H)
    return {"dX": (W_x @ A2.T).T.reshape(B, T, d), "dh0": dh,
            "dW_x": (A2.T @ X.reshape(B * T, d)).T,
            "dW_h": (A2.T @ H_prev.reshape(B * T, H)).T, "db": A2.sum(axis=0)}
