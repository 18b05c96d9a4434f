# right: np.column_stack of the states, reshaped to (B, T, H)

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    cols = []
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        cols.append(h)
    return np.column_stack(cols).reshape(B, T, H)   # [h_0 | h_1 | ...] row by row
