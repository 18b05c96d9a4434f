# wrong: X read as time-major (T, B, d)

def rnn_forward(X, W_x, W_h, b, h0=None):
    T, B, _ = X.shape                       # reads X as (T, B, d)
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((T, B, H))
    for t in range(T):
        h = np.tanh(X[t] @ W_x + h @ W_h + b)
        Hs[t] = h
    return Hs.transpose(1, 0, 2)
