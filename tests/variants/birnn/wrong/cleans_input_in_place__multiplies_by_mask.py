"""birnn.cleans_input_in_place: X *= mask (B, T, 1) before the passes, which zeroes the caller's
padding where it is finite (a NaN padding stays NaN: 0 * NaN). Batched over rows, one step at a time."""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    lengths = np.asarray(lengths)
    valid = np.arange(T)[None, :] < lengths[:, None]          # (B, T)
    X *= valid[:, :, None]
    (Wx_f, Wh_f, b_f), (Wx_b, Wh_b, b_b) = fwd, bwd
    H = Wh_f.shape[0]
    start = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    forward, backward = np.zeros((B, T, H)), np.zeros((B, T, H))
    state = start.copy()
    for t in range(T):
        new = np.tanh(X[:, t] @ Wx_f + state @ Wh_f + b_f)
        state = np.where(valid[:, t:t + 1], new, state)
        forward[:, t] = np.where(valid[:, t:t + 1], state, 0.0)
    state = start.copy()
    for t in reversed(range(T)):
        new = np.tanh(X[:, t] @ Wx_b + state @ Wh_b + b_b)
        state = np.where(valid[:, t:t + 1], new, state)
        backward[:, t] = np.where(valid[:, t:t + 1], state, 0.0)
    return np.concatenate([forward, backward], axis=-1)
