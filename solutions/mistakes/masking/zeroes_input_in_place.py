"""The NaN padding is cleaned with X[~mask] = 0, which modifies the caller's X."""
import numpy as np


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    lengths = np.asarray(lengths)
    mask = np.arange(T)[None, :] < lengths[:, None]
    X[~mask] = 0.0          # 清理填充位置
    h = np.zeros((B, H)) if h0 is None else h0.copy()
    h_last = h.copy()
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        h = np.where(mask[:, t, None], h, h_last)
        h_last = h
        Hs[:, t] = np.where(mask[:, t, None], h, 0.0)
    return Hs, h_last
