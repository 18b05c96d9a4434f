# wrong: dL/dh_(T-1) taken as h_(T-1) (L = sum(h^2) / 2) instead of ones

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = Hs[:, -1].copy()                     # dL/dh_(T-1) taken as h_(T-1) (as for L = sum(h^2) / 2)
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh)
        dh = (dh * (1 - Hs[:, t] ** 2)) @ W_h.T
    return out
