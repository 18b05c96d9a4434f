# mistake: bptt.no_recurrent_grad


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    # per example; dh0 left at zero (the catalogue's keeps step 0's direct term)
    B, T, d = X.shape
    H = W_h.shape[0]
    out = {"dX": np.zeros((B, T, d)), "dh0": np.zeros_like(dHs[:, 0]), "dW_x": np.zeros((d, H)),
           "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    for i in range(B):
        prev = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        for t in range(T):
            h = np.tanh(X[i, t] @ W_x + prev @ W_h + b)
            da = dHs[i, t] * (1.0 - h * h)
            out["dW_x"] += np.outer(X[i, t], da)
            out["dW_h"] += np.outer(prev, da)
            out["db"] += da
            out["dX"][i, t] = W_x @ da
            prev = h
    return out
