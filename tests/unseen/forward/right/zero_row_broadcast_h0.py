# right: h0 None -> one zero row (1, H) that broadcasts over the batch at step 0

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((1, H)) if h0 is None else h0      # one zero row, broadcast over the batch at step 0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
