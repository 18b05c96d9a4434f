# mistake: tinyrnn.manual_tanh_overflow
# the same hand-written tanh in the einsum file, whose embedding gradient uses np.add.at
# base: right/einsum.py (these definitions are appended to it, replacing its own)

def _states(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    A_in = np.einsum("btd,dh->bth", X, W_x) + b
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.asarray(h0, dtype=float)
    steps = []
    for t in range(T):
        a = A_in[:, t] + np.einsum("bi,ih->bh", h, W_h)
        h = (1.0 - np.exp(-2.0 * a)) / (1.0 + np.exp(-2.0 * a))
        steps.append(h)
    return np.stack(steps, axis=1)
