# mistake: bptt.no_recurrent_grad


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dX = np.zeros_like(X)
    dW_x = np.zeros((d, H))
    dW_h = np.zeros((H, H))
    db = np.zeros(H)
    carry = np.zeros((B, H))
    for t in reversed(range(T)):
        dh = dHs[:, t].copy()                 # the carry below is computed, never added in
        da = dh * (1.0 - Hs[:, t] ** 2)
        h_prev = Hs[:, t - 1] if t else h0
        dW_x += np.dot(X[:, t].T, da)
        dW_h += np.dot(h_prev.T, da)
        db += np.sum(da, axis=0)
        dX[:, t] = np.dot(da, W_x.T)
        carry = np.dot(da, W_h.T)
    return {"dX": dX, "dh0": carry, "dW_x": dW_x, "dW_h": dW_h, "db": db}
