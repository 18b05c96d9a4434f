# right: chunk ids compared with integer division, plain loops and np.outer-free matmuls

def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    dh0 = np.zeros((B, H))
    for s in range(T):
        dh = dHs[:, s].copy()
        for t in range(s, -1, -1):
            if t // k != s // k:
                break
            da = dh * (1 - Hs[:, t] ** 2)
            prev = Hs[:, t - 1] if t > 0 else h0
            dX[:, t] += da @ W_x.T
            dW_x += X[:, t].T @ da
            dW_h += prev.T @ da
            db += da.sum(axis=0)
            dh = da @ W_h.T
            if t == 0:
                dh0 += dh
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
