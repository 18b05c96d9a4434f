# mistake: tinyrnn.state_not_carried
# each generated id run from the prefix's state through rnn_forward
# base: right/onehot_and_reuse.py (these definitions are appended to it, replacing its own)

def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    E, W_x, W_h, b = params["E"], params["W_x"], params["W_h"], params["b"]
    V = E.shape[0]
    if temperature != 0 and u is None:
        u = np.random.default_rng().random(n_max)
    Hs = rnn_forward(E[np.asarray(prefix, dtype=int)][None], W_x, W_h, b)
    h = after_prefix = Hs[:, -1]
    result = []
    for k in range(n_max):
        logits = (h @ params["W_o"] + params["b_o"])[0]
        if temperature == 0:
            nxt = int(np.argmax(logits))
        else:
            nxt = int(np.searchsorted(np.cumsum(_probs(logits / temperature)), u[k], side="right"))
            nxt = min(nxt, V - 1)
        result.append(nxt)
        if nxt == stop_token:
            break
        h = rnn_forward(E[[nxt]][None], W_x, W_h, b, after_prefix)[:, -1]
    return result
