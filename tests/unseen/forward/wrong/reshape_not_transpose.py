# wrong: collects (T, B, H) and reshapes to (B, T, H) instead of transposing

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    states = []
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        states.append(h)
    return np.array(states).reshape(B, T, H)
