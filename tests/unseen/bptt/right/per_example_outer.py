# right: one example and one step at a time, with np.outer

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
    dX = np.zeros_like(X)
    dh0 = np.zeros_like(h0)
    dW_x, dW_h, db = np.zeros_like(W_x), np.zeros_like(W_h), np.zeros_like(b)
    for i in range(B):
        carry = np.zeros(W_h.shape[0])
        for t in range(T - 1, -1, -1):
            a = (dHs[i, t] + carry) * (1 - Hs[i, t] ** 2)
            prev = Hs[i, t - 1] if t > 0 else h0[i]
            dW_x += np.outer(X[i, t], a)
            dW_h += np.outer(prev, a)
            db += a
            dX[i, t] = W_x @ a
            carry = W_h @ a
        dh0[i] = carry
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
