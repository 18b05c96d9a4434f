# correct code written another way: full marks, no diagnosis


def rnn_forward(X, W_x, W_h, b, h0=None):
    # the input terms of every step at once, the recurrence in long double, float64 out
    B, T, _ = X.shape
    H = W_h.shape[0]
    inputs = np.einsum("btd,dh->bth", X, W_x).astype(np.longdouble) + b
    W = W_h.astype(np.longdouble)
    h = np.zeros((B, H), dtype=np.longdouble) if h0 is None else np.array(h0, dtype=np.longdouble)
    out = np.empty((B, T, H), dtype=np.longdouble)
    for t in range(T):
        h = np.tanh(inputs[:, t] + h @ W)
        out[:, t] = h
    return out.astype(np.float64)
