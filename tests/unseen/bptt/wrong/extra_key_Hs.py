# wrong: returns the states too; the contract asks for exactly the five keys

def _fwd(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    h = h0
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return h0, Hs

_reference_backward = rnn_backward
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    grads = _reference_backward(X, W_x, W_h, b, dHs, h0)
    grads["Hs"] = _fwd(X, W_x, W_h, b, h0)[1]
    return grads
