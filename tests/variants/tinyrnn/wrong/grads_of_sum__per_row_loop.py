"""tinyrnn.grads_of_sum in a loop over the rows (min-char-rnn style): the loss divided by the valid count,
the accumulated gradients left as the sums they are."""
import numpy as np


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    E, W_x, W_h, b, W_o, b_o = (params[k] for k in ("E", "W_x", "W_h", "b", "W_o", "b_o"))
    H = W_h.shape[0]
    acc = {"dE": np.zeros(E.shape), "dW_x": np.zeros(W_x.shape), "dW_h": np.zeros(W_h.shape),
           "db": np.zeros(b.shape), "dW_o": np.zeros(W_o.shape), "db_o": np.zeros(b_o.shape)}
    total, count = 0.0, 0
    for row in range(len(tokens)):
        n = int(min(lengths[row], len(tokens[row])))
        ids = [int(v) for v in tokens[row][:n]]
        h = np.zeros((n + 1, H))
        h[0] = 0.0 if h0 is None else h0[row]
        p = np.zeros((n, len(b_o)))
        for t, i in enumerate(ids):
            h[t + 1] = np.tanh(E[i] @ W_x + h[t] @ W_h + b)
            y = h[t + 1] @ W_o + b_o
            p[t] = np.exp(y - y.max()) / np.exp(y - y.max()).sum()
            total -= np.log(p[t, int(targets[row][t])])
        count += n
        carry = np.zeros(H)
        for t in range(n - 1, -1, -1):
            g = p[t].copy()
            g[int(targets[row][t])] -= 1
            acc["dW_o"] += np.outer(h[t + 1], g)
            acc["db_o"] += g
            da = (g @ W_o.T + carry) * (1 - h[t + 1] ** 2)
            acc["db"] += da
            acc["dW_x"] += np.outer(E[ids[t]], da)
            acc["dW_h"] += np.outer(h[t], da)
            acc["dE"][ids[t]] += W_x @ da
            carry = W_h @ da
    if count == 0:
        return 0.0, acc
    return float(total / count), acc
