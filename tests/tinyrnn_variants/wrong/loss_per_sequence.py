# mistake: tinyrnn.loss_per_sequence
# the per-sequence mean, written with a loop over the rows, and its gradients
# base: right/loops.py (these definitions are appended to it, replacing its own)

def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens)
    targets = np.asarray(targets)
    B, T = tokens.shape
    lengths = [min(int(n), T) for n in lengths]
    rows = [i for i in range(B) if lengths[i] > 0]
    grads = {"d" + k: np.zeros(np.shape(params[k])) for k in KEYS}
    if not rows:
        return 0.0, grads
    E, W_x, W_h, W_o = params["E"], params["W_x"], params["W_h"], params["W_o"]
    H = W_h.shape[0]
    X = embed(tokens, E)
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    row_means = []
    for i in range(B):
        n = lengths[i]
        row_total = 0.0
        dh_next = np.zeros(H)
        for t in reversed(range(T)):
            if t < n:
                z = logits[i, t]
                m = np.max(z)
                lse = m + np.log(np.sum(np.exp(z - m)))
                row_total += lse - z[targets[i, t]]
                dz = np.exp(z - lse)
                dz[targets[i, t]] -= 1.0
                dz = dz / n / len(rows)
                grads["dW_o"] += np.outer(Hs[i, t], dz)
                grads["db_o"] += dz
                dh = dz @ W_o.T + dh_next
            else:
                dh = dh_next
            da = dh * (1.0 - Hs[i, t] ** 2)
            if t > 0:
                h_prev = Hs[i, t - 1]
            else:
                h_prev = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
            grads["dW_x"] += np.outer(X[i, t], da)
            grads["dW_h"] += np.outer(h_prev, da)
            grads["db"] += da
            grads["dE"][tokens[i, t]] += da @ W_x.T
            dh_next = da @ W_h.T
        if n > 0:
            row_means.append(row_total / n)
    return float(np.mean(row_means)), grads
