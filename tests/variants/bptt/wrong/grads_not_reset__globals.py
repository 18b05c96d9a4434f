"""bptt.grads_not_reset: module-level accumulators declared global, re-created only when a shape changes."""
import numpy as np

ACC_W_X = ACC_W_H = ACC_B = None


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    global ACC_W_X, ACC_W_H, ACC_B
    if ACC_W_X is None or ACC_W_X.shape != W_x.shape:
        ACC_W_X = np.zeros(W_x.shape)
    if ACC_W_H is None or ACC_W_H.shape != W_h.shape:
        ACC_W_H = np.zeros(W_h.shape)
    if ACC_B is None or ACC_B.shape != b.shape:
        ACC_B = np.zeros(b.shape)
    B, T, _ = X.shape
    start = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start)  # noqa: F821 -- the reference file's
    dA = np.zeros_like(Hs)
    back = np.zeros_like(start)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + back) * (1 - Hs[:, t] ** 2)
        back = dA[:, t] @ W_h.T
    prev = np.concatenate([start[:, None], Hs[:, :-1]], axis=1)
    ACC_W_X += np.einsum("btd,bth->dh", X, dA)
    ACC_W_H += np.einsum("bti,bth->ih", prev, dA)
    ACC_B += dA.sum(axis=(0, 1))
    return {"dX": dA @ W_x.T, "dh0": back, "dW_x": ACC_W_X + 0, "dW_h": ACC_W_H + 0, "db": ACC_B + 0}
