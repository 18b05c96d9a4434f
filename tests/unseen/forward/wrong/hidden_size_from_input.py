# wrong: hidden size read from the input (assumes d == H)

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, H = X.shape
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
