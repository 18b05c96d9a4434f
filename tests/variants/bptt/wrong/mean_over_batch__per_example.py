"""bptt.mean_over_batch: the batch is looped over, one example at a time, and the parameter gradients
averaged over the examples (np.mean of the per-example gradients)."""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    starts = np.zeros((B, H)) if h0 is None else h0
    dX, dh0 = np.zeros((B, T, d)), np.zeros((B, H))
    per_x, per_h, per_b = [], [], []
    for i in range(B):
        hs = [starts[i]]
        for t in range(T):
            hs.append(np.tanh(X[i, t] @ W_x + hs[-1] @ W_h + b))
        gx, gh, gb, back = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H), np.zeros(H)
        for t in reversed(range(T)):
            da = (dHs[i, t] + back) * (1 - hs[t + 1] ** 2)
            dX[i, t] = W_x @ da
            gx += np.outer(X[i, t], da)
            gh += np.outer(hs[t], da)
            gb += da
            back = W_h @ da
        dh0[i] = back
        per_x.append(gx)
        per_h.append(gh)
        per_b.append(gb)
    return {"dX": dX, "dh0": dh0, "dW_x": np.mean(per_x, axis=0), "dW_h": np.mean(per_h, axis=0),
            "db": np.mean(per_b, axis=0)}
