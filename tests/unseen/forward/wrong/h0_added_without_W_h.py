# wrong only when h0 is given: h0 is added at step 0 instead of going through W_h

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    for t in range(T):
        if t == 0:
            start = np.zeros((B, H)) if h0 is None else h0
            h = np.tanh(X[:, 0] @ W_x + start + b)
        else:
            h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
