"""At padded positions the frozen last state is stored instead of zeros."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, d = X.shape
    lengths = np.asarray(lengths)
    H = fwd[1].shape[0]
    out = np.zeros((B, T, 2 * H))
    for i in range(B):
        L = int(lengths[i])
        # 正向
        W_x, W_h, b = fwd
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(T):
            if t < L:
                h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            out[i, t, :H] = h              # 填充位置保留最后的状态
        # 反向
        W_x, W_h, b = bwd
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(L - 1, -1, -1):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            out[i, t, H:] = h
        out[i, L:, H:] = h
    return out
