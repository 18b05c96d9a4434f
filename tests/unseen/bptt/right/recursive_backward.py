# right: recursion over t, parameter gradients as sums of per-step products

def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dA = np.zeros((B, T, H))
    def back(t, carry):
        if t < 0:
            return carry
        dA[:, t] = (dHs[:, t] + carry) * (1 - Hs[:, t] ** 2)
        return back(t - 1, dA[:, t] @ W_h.T)
    dh0 = back(T - 1, np.zeros((B, H)))
    prev = [h0] + [Hs[:, t] for t in range(T - 1)]
    return {"dX": dA @ W_x.T, "dh0": dh0,
            "dW_x": sum((X[:, t].T @ dA[:, t] for t in range(T)), np.zeros((d, H))),
            "dW_h": sum((prev[t].T @ dA[:, t] for t in range(T)), np.zeros((H, H))),
            "db": dA.reshape(-1, H).sum(axis=0)}
