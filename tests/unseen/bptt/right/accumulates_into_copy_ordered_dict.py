# right: copies dHs first, then accumulates into the copy in place; returns an OrderedDict

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

from collections import OrderedDict
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    T = X.shape[1]
    g = dHs.copy()
    out = OrderedDict(dX=np.zeros_like(X), dh0=None, dW_x=np.zeros_like(W_x), dW_h=np.zeros_like(W_h),
                      db=np.zeros_like(b))
    for t in range(T - 1, -1, -1):
        g[:, t] *= 1 - Hs[:, t] ** 2
        if t > 0:
            g[:, t - 1] += g[:, t] @ W_h.T
        prev = Hs[:, t - 1] if t > 0 else h0
        out["dW_x"] += X[:, t].T @ g[:, t]
        out["dW_h"] += prev.T @ g[:, t]
        out["db"] += g[:, t].sum(axis=0)
        out["dX"][:, t] = g[:, t] @ W_x.T
    out["dh0"] = g[:, 0] @ W_h.T if T else np.zeros_like(h0)
    return out
