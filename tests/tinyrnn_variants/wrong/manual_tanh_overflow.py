# mistake: tinyrnn.manual_tanh_overflow
# tanh as (1 - e^-2a) / (1 + e^-2a): NaN once a < about -355
# base: right/onehot_and_reuse.py (these definitions are appended to it, replacing its own)

def tiny_rnn_forward(tokens, params, h0=None):
    X = embed(tokens, params["E"])
    B, T, _ = X.shape
    h = np.zeros((B, params["W_h"].shape[0])) if h0 is None else np.asarray(h0, dtype=float)
    Hs = np.zeros((B, T, params["W_h"].shape[0]))
    for t in range(T):
        a = X[:, t] @ params["W_x"] + h @ params["W_h"] + params["b"]
        h = (1.0 - np.exp(-2.0 * a)) / (1.0 + np.exp(-2.0 * a))
        Hs[:, t] = h
    return Hs @ params["W_o"] + params["b_o"], Hs
