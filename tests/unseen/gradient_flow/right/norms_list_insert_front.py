# right: list.insert(0, ...) and an einsum for the W_h^T product

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    g = np.full((B, H), 1.0)
    out = []
    for t in range(T - 1, -1, -1):
        out.insert(0, np.linalg.norm(g.ravel()))
        g = np.einsum("bj,ij->bi", g * (1 - Hs[:, t] ** 2), W_h)
    return np.asarray(out)
