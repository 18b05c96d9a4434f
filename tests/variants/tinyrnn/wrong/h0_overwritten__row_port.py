"""tinyrnn.h0_overwritten, one row at a time: hs = np.zeros((T, H)) with hs[-1] = h0[i], as min-char-rnn's
hs[-1] = hprev, overwritten at the last step before the backward pass reads hs[t - 1] at t = 0."""
import numpy as np


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    E, W_x, W_h, b, W_o, b_o = (params[k] for k in ("E", "W_x", "W_h", "b", "W_o", "b_o"))
    tokens, targets = np.asarray(tokens, dtype=int), np.asarray(targets, dtype=int)
    B, T = tokens.shape
    H = W_h.shape[0]
    valid = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    count = valid.sum()
    grads = {"d" + k: np.zeros(np.shape(v)) for k, v in params.items()}
    if count == 0:
        return 0.0, grads
    loss = 0.0
    for i in range(B):
        hs = np.zeros((T, H))
        hs[-1] = np.zeros(H) if h0 is None else h0[i]
        ps = np.zeros((T, len(b_o)))
        for t in range(T):
            hs[t] = np.tanh(E[tokens[i, t]] @ W_x + hs[t - 1] @ W_h + b)
            y = hs[t] @ W_o + b_o
            ps[t] = np.exp(y - y.max()) / np.sum(np.exp(y - y.max()))
            if valid[i, t]:
                loss -= np.log(ps[t, targets[i, t]])
        dh_next = np.zeros(H)
        for t in reversed(range(T)):
            dy = ps[t].copy()
            dy[targets[i, t]] -= 1
            dy = dy * valid[i, t] / count
            grads["dW_o"] += np.outer(hs[t], dy)
            grads["db_o"] += dy
            da = (W_o @ dy + dh_next) * (1 - hs[t] ** 2)
            grads["db"] += da
            grads["dW_x"] += np.outer(E[tokens[i, t]], da)
            grads["dW_h"] += np.outer(hs[t - 1], da)
            grads["dE"][tokens[i, t]] += W_x @ da
            dh_next = W_h @ da
    return float(loss / count), grads
