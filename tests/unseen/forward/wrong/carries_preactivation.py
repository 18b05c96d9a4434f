# wrong: the pre-activation is carried from step to step and tanh is applied only to the output

def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    a = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        a = X[:, t] @ W_x + a @ W_h + b     # the pre-activation is carried, tanh only on the output
        Hs[:, t] = np.tanh(a)
    return Hs
