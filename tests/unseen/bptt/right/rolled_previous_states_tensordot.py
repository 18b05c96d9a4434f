# right: h_(t-1) from np.roll with slot 0 set to h0, tensordot for the sums

def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    H_prev = np.roll(Hs, 1, axis=1)
    if T:
        H_prev[:, 0] = h0
    dA = np.zeros((B, T, H))
    carry = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + carry) * (1 - Hs[:, t] ** 2)
        carry = np.dot(dA[:, t], W_h.T)
    return {"dX": np.tensordot(dA, W_x, axes=([2], [1])), "dh0": carry,
            "dW_x": np.tensordot(X, dA, axes=([0, 1], [0, 1])),
            "dW_h": np.tensordot(H_prev, dA, axes=([0, 1], [0, 1])), "db": dA.sum(axis=(0, 1))}
