# wrong: the norm is taken after step t's own tanh derivative (dL/da_t, not dL/dh_t)

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones((B, H))
    for t in reversed(range(T)):
        da = dh * (1 - Hs[:, t] ** 2)
        out[t] = np.linalg.norm(da)
        dh = da @ W_h.T
    return out
