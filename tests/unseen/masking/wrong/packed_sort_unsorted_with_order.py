# wrong: pack_padded_sequence style: rows sorted by length, then 'unsorted' with the order itself instead of
# its inverse; right whenever the sort permutation is its own inverse

def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # like pack_padded_sequence: sort rows by length (longest first), run only the active prefix of
    # rows at each step, then undo the sort -- with the sort order itself instead of its inverse
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    H = W_h.shape[0]
    order = np.argsort(-lengths, kind="stable")
    Xs, Ls = X[order], lengths[order]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)[order]
    Hs = np.zeros((B, T, H))
    for t in range(T):
        n = int(np.sum(Ls > t))
        if n == 0:
            break
        h[:n] = np.tanh(Xs[:n, t] @ W_x + h[:n] @ W_h + b)
        Hs[:n, t] = h[:n]
    return Hs[order], h[order]
