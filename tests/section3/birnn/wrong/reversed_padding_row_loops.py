# mistake: birnn.reversed_padding


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    W_x, W_h, b = bwd
    H = W_h.shape[0]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_b = np.zeros((B, T, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(T - 1, -1, -1):        # from the end of the padded row
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            if t < lengths[i]:
                H_b[i, t] = h
    return np.concatenate([H_f, H_b], axis=-1)
