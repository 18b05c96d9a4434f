# mistake: tinyrnn.stop_in_prefix
# a stop token anywhere in the prefix: nothing generated
# base: right/einsum.py (these definitions are appended to it, replacing its own)

def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    E, W_x, W_h, b, W_o, b_o = (params[name] for name in NAMES)
    V = E.shape[0]
    if stop_token in prefix:
        return []
    if temperature > 0 and u is None:
        u = np.random.default_rng().uniform(0.0, 1.0, n_max)
    h = np.zeros((1, W_h.shape[0]))
    for token in prefix:
        h = np.tanh(np.einsum("d,dh->h", E[int(token)], W_x) + np.einsum("bi,ih->bh", h, W_h) + b)
    ids = []
    for k in range(n_max):
        logits = np.einsum("bh,hv->bv", h, W_o)[0] + b_o
        if temperature == 0:
            nxt = int(np.argmax(logits))
        else:
            edges = np.add.accumulate(softmax(logits / temperature))
            nxt = min(int(np.searchsorted(edges, u[k], side="right")), V - 1)
        ids.append(nxt)
        if nxt == stop_token:
            break
        h = np.tanh(np.einsum("d,dh->h", E[nxt], W_x) + np.einsum("bi,ih->bh", h, W_h) + b)
    return ids
