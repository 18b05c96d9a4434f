# right: recursion over the chunks from the end, rnn_backward per chunk

def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    def chunks(stop):
        if stop <= 0:
            return []
        start = ((stop - 1) // k) * k
        entering = h0 if start == 0 else Hs[:, start - 1]
        return [(start, rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop], h0=entering))] + chunks(start)
    parts = chunks(T)
    dX = np.concatenate([g["dX"] for _, g in sorted(parts, key=lambda p: p[0])], axis=1) if parts else np.zeros_like(X)
    first = [g for s, g in parts if s == 0]
    return {"dX": dX, "dh0": first[0]["dh0"] if first else np.zeros((B, H)),
            "dW_x": sum(g["dW_x"] for _, g in parts), "dW_h": sum(g["dW_h"] for _, g in parts),
            "db": sum(g["db"] for _, g in parts)}
