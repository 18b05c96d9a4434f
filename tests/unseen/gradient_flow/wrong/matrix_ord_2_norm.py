# wrong: np.linalg.norm(dh, 2) of a (B, H) matrix is its largest singular value (right only at T-1)

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones((B, H))
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh, 2)
        dh = (dh * (1 - Hs[:, t] ** 2)) @ W_h.T
    return out
