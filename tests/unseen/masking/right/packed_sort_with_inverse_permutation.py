# right: pack_padded_sequence style with the correct inverse permutation argsort(order)

def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    H = W_h.shape[0]
    order = np.argsort(-lengths, kind="stable")
    inverse = np.argsort(order)
    Xs, Ls = X[order], lengths[order]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)[order]
    Hs = np.zeros((B, T, H))
    for t in range(T):
        n = int(np.sum(Ls > t))
        if n == 0:
            break
        h[:n] = np.tanh(Xs[:n, t] @ W_x + h[:n] @ W_h + b)
        Hs[:n, t] = h[:n]
    return Hs[inverse], h[inverse]
