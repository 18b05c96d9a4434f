# wrong: stores the backward state from BEFORE it consumes x_t

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    W_x, W_h, b = bwd
    H_b = np.zeros((B, T, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(int(lengths[i]) - 1, -1, -1):
            H_b[i, t] = h
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
    return np.concatenate([H_f, H_b], axis=-1)
