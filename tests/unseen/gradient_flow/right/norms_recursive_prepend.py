# right: recursion that appends the norms in time order

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    def go(t, g):
        if t < 0:
            return []
        return go(t - 1, (g * (1 - Hs[:, t] ** 2)) @ W_h.T) + [float(np.sqrt(np.sum(g * g)))]
    return np.array(go(T - 1, np.ones((B, H))), dtype=float)
