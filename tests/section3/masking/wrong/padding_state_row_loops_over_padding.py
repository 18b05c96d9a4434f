# mistake: masking.padding_state


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # per row and step; the recurrence runs on over the padding, h_last after all T steps
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    h_last = np.zeros((B, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        for t in range(T):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            if t < lengths[i]:
                Hs[i, t] = h
        h_last[i] = h
    return Hs, h_last
