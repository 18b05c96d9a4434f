"""tinyrnn.grads_last_upstream_twice: per row, BPTT over the valid steps only, the carry seeded with the last
valid step's upstream (counted again in the loop)."""
import numpy as np


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    E, W_x, W_h, b, W_o, b_o = (params[k] for k in PARAMS)  # noqa: F821 -- the reference file's
    tokens = np.asarray(tokens, dtype=int)
    targets = np.asarray(targets, dtype=int)
    B, T = tokens.shape
    H, V = W_h.shape[0], E.shape[0]
    lengths = [int(n) for n in lengths]
    count = sum(min(n, T) for n in lengths)
    dE, dW_x, dW_h, db, dW_o, db_o = (np.zeros(np.shape(params[k])) for k in PARAMS)  # noqa: F821 -- the reference file's
    grads = {"dE": dE, "dW_x": dW_x, "dW_h": dW_h, "db": db, "dW_o": dW_o, "db_o": db_o}
    if count == 0:
        return 0.0, grads
    loss = 0.0
    for i in range(B):
        hs = [np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)]
        ups = []
        for t in range(T):
            hs.append(np.tanh(E[tokens[i, t]] @ W_x + hs[-1] @ W_h + b))
            y = hs[-1] @ W_o + b_o
            y = y - y.max()
            logp = y - np.log(np.exp(y).sum())
            g = np.exp(logp)
            g[targets[i, t]] -= 1.0
            if t < lengths[i]:
                loss -= logp[targets[i, t]]
                ups.append(g / count)
            else:
                ups.append(np.zeros(V))
        L = lengths[i]
        carry = W_o @ ups[L - 1] if L > 0 else np.zeros(H)
        for t in reversed(range(L)):
            dW_o += np.outer(hs[t + 1], ups[t])
            db_o += ups[t]
            da = (W_o @ ups[t] + carry) * (1.0 - hs[t + 1] ** 2)
            dW_x += np.outer(E[tokens[i, t]], da)
            dW_h += np.outer(hs[t], da)
            db += da
            dE[tokens[i, t]] += W_x @ da
            carry = W_h @ da
    return float(loss / count), grads
