# right: per-example Jacobians chained with einsum, norms summed in squares over the batch

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    G = np.ones((B, H))
    sq = [0.0] * T
    for t in range(T - 1, -1, -1):
        sq[t] = float(np.einsum("bh,bh->", G, G))
        J = np.einsum("ij,bj->bij", W_h, 1 - Hs[:, t] ** 2)   # d h_t / d h_(t-1), row-vector form
        G = np.einsum("bij,bj->bi", J, G)
    return np.sqrt(np.array(sq))
