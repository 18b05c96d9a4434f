# right: np.dstack then transpose (0, 2, 1)

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    states = []
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        states.append(h)
    return np.transpose(np.dstack(states), (0, 2, 1))
