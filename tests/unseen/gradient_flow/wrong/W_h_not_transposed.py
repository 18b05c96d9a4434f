# wrong: backpropagates through W_h instead of W_h.T

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones((B, H))
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh)
        dh = (dh * (1 - Hs[:, t] ** 2)) @ W_h
    return out
