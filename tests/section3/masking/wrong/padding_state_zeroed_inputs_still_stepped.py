# mistake: masking.padding_state


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # padding cleaned to zeros (np.where) but still stepped through; input terms by einsum
    B, T, _ = X.shape
    H = W_h.shape[0]
    valid = np.arange(T) < np.asarray(lengths)[:, None]
    inputs = np.einsum("btd,dh->bth", np.where(valid[..., None], X, 0.0), W_x)
    h = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(inputs[:, t] + h @ W_h + b)
        Hs[:, t] = np.where(valid[:, t, None], h, 0.0)
    return Hs, h
