# mistake: bptt.uses_current_state


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    dX = np.zeros((B, T, d))
    dh0 = np.zeros((B, H))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
        hs = []
        for t in range(T):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            hs.append(h)
        g = np.zeros(H)
        for t in reversed(range(T)):
            da = (dHs[i, t] + g) * (1.0 - hs[t] ** 2)
            dW_x += np.outer(X[i, t], da)
            dW_h += np.outer(hs[t], da)              # h_t, not h_(t-1)
            db += da
            dX[i, t] = W_x @ da
            g = W_h @ da
        dh0[i] = g
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
