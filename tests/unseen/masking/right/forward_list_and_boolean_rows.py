# right: returns [Hs, h_last] as a list; padding removed by boolean indexing of the rows still running

def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    lengths = np.asarray(lengths)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        rows = lengths > t
        h[rows] = np.tanh(X[rows, t] @ W_x + h[rows] @ W_h + b)
        Hs[rows, t] = h[rows]
    return [Hs, h]
