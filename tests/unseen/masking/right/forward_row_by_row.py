# right: each row run alone over its valid prefix with rnn_forward

from rnn_forward import rnn_forward
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    h_last = start.copy()
    for i in range(B):
        L = int(lengths[i])
        if L > 0:
            Hs[i, :L] = rnn_forward(X[i:i + 1, :L], W_x, W_h, b, start[i:i + 1])[0]
            h_last[i] = Hs[i, L - 1]
    return Hs, h_last
