# right: np.add.at scatter-adds into the gradient buffers

def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    g = np.zeros((B, H))
    for t in reversed(range(T)):
        da = (dHs[:, t] + g) * (1.0 - np.square(Hs[:, t]))
        prev = Hs[:, t - 1] if t else h0
        np.add.at(dW_x, (slice(None), slice(None)), X[:, t].T @ da)
        np.add.at(dW_h, (slice(None), slice(None)), prev.T @ da)
        np.add.at(db, np.repeat(np.arange(H)[None, :], B, axis=0), da)     # scatter-add over the batch
        dX[:, t] = da @ W_x.T
        g = da @ W_h.T
    return {"dX": dX, "dh0": g, "dW_x": dW_x, "dW_h": dW_h, "db": db}
