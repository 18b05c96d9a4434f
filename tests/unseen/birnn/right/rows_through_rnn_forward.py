# right: rnn_forward on each row's valid part and on its np.flip

from rnn_forward import rnn_forward
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    out = []
    for i in range(B):
        L = int(lengths[i])
        row = np.zeros((T, 2 * H))
        if L:
            x = X[i:i + 1, :L]
            row[:L, :H] = rnn_forward(x, *fwd, h0=start[i:i + 1])[0]
            row[:L, H:] = np.flip(rnn_forward(np.flip(x, axis=1), *bwd, h0=start[i:i + 1])[0], axis=0)
        out.append(row)
    return np.array(out).reshape(B, T, 2 * H)
