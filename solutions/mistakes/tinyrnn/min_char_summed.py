"""min-char-rnn's loop: the loss and its gradients summed over the positions, neither divided by their number."""
import numpy as np


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    E, Wxh, Whh, bh, Why, by = (params[k] for k in ("E", "W_x", "W_h", "b", "W_o", "b_o"))
    tokens, targets = np.asarray(tokens, dtype=int), np.asarray(targets, dtype=int)
    B, T = tokens.shape
    H = Whh.shape[0]
    dE, dWxh, dWhh = np.zeros(E.shape), np.zeros(Wxh.shape), np.zeros(Whh.shape)
    dbh, dWhy, dby = np.zeros(bh.shape), np.zeros(Why.shape), np.zeros(by.shape)
    loss, count = 0.0, 0
    for i in range(B):
        n = min(int(lengths[i]), T)
        xs, hs, ps = {}, {}, {}
        hs[-1] = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        for t in range(n):
            xs[t] = E[tokens[i, t]]
            hs[t] = np.tanh(xs[t] @ Wxh + hs[t - 1] @ Whh + bh)
            ys = hs[t] @ Why + by
            ys = ys - ys.max()
            ps[t] = np.exp(ys) / np.sum(np.exp(ys))
            loss += -np.log(ps[t][targets[i, t]])
        count += n
        dhnext = np.zeros(H)
        for t in reversed(range(n)):
            dy = np.copy(ps[t])
            dy[targets[i, t]] -= 1
            dWhy += np.outer(hs[t], dy)
            dby += dy
            dh = dy @ Why.T + dhnext
            dhraw = (1 - hs[t] * hs[t]) * dh
            dbh += dhraw
            dWxh += np.outer(xs[t], dhraw)
            dWhh += np.outer(hs[t - 1], dhraw)
            dE[tokens[i, t]] += dhraw @ Wxh.T
            dhnext = dhraw @ Whh.T
    grads = {"dE": dE, "dW_x": dWxh, "dW_h": dWhh, "db": dbh, "dW_o": dWhy, "db_o": dby}
    if count == 0:
        return 0.0, grads
    for name in grads:
        grads[name] = grads[name]
    return float(loss), grads
