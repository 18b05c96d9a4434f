"""truncation.resets_state: per chunk, its own forward from zeros (h0 for the first) and a vectorised
backward on that chunk; the chunks' parameter gradients summed."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    out = dict(dX=np.zeros((B, T, d)), dh0=np.zeros((B, H)), dW_x=np.zeros((d, H)), dW_h=np.zeros((H, H)),
               db=np.zeros(H))
    for s in range(0, T, k):
        e = min(s + k, T)
        h_in = (np.zeros((B, H)) if h0 is None else h0) if s == 0 else np.zeros((B, H))
        Hc = rnn_forward(X[:, s:e], W_x, W_h, b, h_in)  # noqa: F821 -- the reference file's
        dA = np.zeros_like(Hc)
        g = np.zeros((B, H))
        for j in reversed(range(e - s)):
            dA[:, j] = (dHs[:, s + j] + g) * (1 - Hc[:, j] ** 2)
            g = dA[:, j] @ W_h.T
        prev = np.concatenate([h_in[:, None], Hc[:, :-1]], axis=1)
        out["dX"][:, s:e] = dA @ W_x.T
        out["dW_x"] += np.einsum("btd,bth->dh", X[:, s:e], dA)
        out["dW_h"] += np.einsum("bti,bth->ih", prev, dA)
        out["db"] += dA.sum(axis=(0, 1))
        if s == 0:
            out["dh0"] = g
    return out
