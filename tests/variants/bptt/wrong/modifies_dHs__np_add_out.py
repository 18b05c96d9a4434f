"""bptt.modifies_dHs: np.add(dHs[:, t], carry, out=dHs[:, t]) accumulates in the caller's upstream."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    hs = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        hs.append(np.tanh(np.einsum("bd,dh->bh", X[:, t], W_x) + np.einsum("bk,kh->bh", hs[-1], W_h) + b))
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    carry = np.zeros((B, H))
    for t in reversed(range(T)):
        np.add(dHs[:, t], carry, out=dHs[:, t])
        da = dHs[:, t] * (1 - hs[t + 1] ** 2)
        dX[:, t] = np.einsum("bh,dh->bd", da, W_x)
        dW_x += np.einsum("bd,bh->dh", X[:, t], da)
        dW_h += np.einsum("bk,bh->kh", hs[t], da)
        db += da.sum(axis=0)
        carry = np.einsum("bh,kh->bk", da, W_h)
    return {"dX": dX, "dh0": carry, "dW_x": dW_x, "dW_h": dW_h, "db": db}
