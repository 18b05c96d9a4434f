# correct code written another way: full marks, no diagnosis


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    out = np.zeros((B, T, 2 * H))
    for i in range(B):
        L = int(lengths[i])
        for half, (W_x, W_h, b), steps in ((0, fwd, range(L)), (1, bwd, range(L - 1, -1, -1))):
            h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
            for t in steps:
                h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
                out[i, t, half * H:(half + 1) * H] = h
    return out
