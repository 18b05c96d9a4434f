# mistake: forward.state_not_carried


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    for i in range(B):
        start = np.zeros(H) if h0 is None else h0[i]
        for t in range(T):
            Hs[i, t] = np.tanh(np.dot(X[i, t], W_x) + np.dot(start, W_h) + b)
    return Hs
