# wrong: np.squeeze on the result: T == 1 gives a 0-d array instead of shape (1,)

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dh = np.ones(Hs[:, -1].shape)
    norms = []
    for t in range(Hs.shape[1] - 1, -1, -1):
        norms.append(np.linalg.norm(dh))
        dh = (dh * (1 - Hs[:, t] ** 2)) @ W_h.T
    return np.squeeze(np.array(norms[::-1]))
