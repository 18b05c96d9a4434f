# right: norms collected backwards in a list and returned as a reversed view

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    g = np.ones_like(Hs[:, 0])
    back = []
    for t in range(Hs.shape[1] - 1, -1, -1):
        back.append(math.sqrt(float(np.vdot(g, g))))
        g = np.dot(g * (1 - Hs[:, t] ** 2), W_h.T)
    return np.array(back)[::-1]
