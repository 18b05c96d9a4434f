# right: k >= T fast path; T // k + 1 chunks, the empty one skipped

def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    if k >= T:
        return rnn_backward(X, W_x, W_h, b, dHs, h0)
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    out = {"dX": np.zeros_like(X), "dh0": None, "dW_x": 0.0, "dW_h": 0.0, "db": 0.0}
    for c in range(T // k + 1):              # one chunk too many when k divides T: it is empty
        start, stop = c * k, min(c * k + k, T)
        if start >= stop:
            continue
        g = rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop],
                         h0=h0 if c == 0 else Hs[:, start - 1])
        out["dX"][:, start:stop] = g["dX"]
        out["dW_x"] = out["dW_x"] + g["dW_x"]
        out["dW_h"] = out["dW_h"] + g["dW_h"]
        out["db"] = out["db"] + g["db"]
        if c == 0:
            out["dh0"] = g["dh0"]
    return out
