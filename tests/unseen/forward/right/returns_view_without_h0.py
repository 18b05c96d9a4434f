# right: T + 1 slots with h0 in slot 0; returns the view Hs[:, 1:] (not contiguous)

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    S = np.zeros((B, T + 1, H))
    if h0 is not None:
        S[:, 0] = h0
    for t in range(T):
        S[:, t + 1] = np.tanh(np.dot(X[:, t], W_x) + np.dot(S[:, t], W_h) + b)
    return S[:, 1:]
