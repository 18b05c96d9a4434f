# mistake: tinyrnn.stops_before_stop_token
# all n_max ids generated, then cut before the first stop token
# base: right/time_major.py (these definitions are appended to it, replacing its own)

def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    E, W_x, W_h, b, W_o, b_o = map(params.get, ORDER)
    V = len(E)
    if u is None and temperature > 0:
        u = np.random.default_rng().random(size=n_max)
    h = np.zeros(W_h.shape[0])
    for token in prefix:
        h = np.tanh(np.dot(E[token], W_x) + np.dot(h, W_h) + b)
    out = []
    for k in range(n_max):
        logits = np.dot(h, W_o) + b_o
        if temperature == 0:
            nxt = int(np.argmax(logits))
        else:
            nxt = min(int(np.searchsorted(np.cumsum(_stable_softmax(logits / temperature)), u[k],
                                          side="right")), V - 1)
        out.append(nxt)
        h = np.tanh(np.dot(E[nxt], W_x) + np.dot(h, W_h) + b)
    if stop_token in out:
        out = out[:out.index(stop_token)]
    return out
