# wrong: the backward recursion in float32

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0).astype(np.float32)
    Wt = W_h.T.astype(np.float32)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones((B, H), dtype=np.float32)
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh)
        dh = (dh * (1 - Hs[:, t] ** 2)) @ Wt
    return out
