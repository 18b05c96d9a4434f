# mistake: tinyrnn.temperature_multiplied
# the own softmax of the logits times the temperature
# base: right/loops.py (these definitions are appended to it, replacing its own)

def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    E, W_x, W_h, b, W_o, b_o = [params[k] for k in KEYS]
    V = E.shape[0]
    if u is None and temperature > 0:
        u = np.random.default_rng().random(n_max)
    h = np.zeros(W_h.shape[0])
    for tok in prefix:
        h = np.tanh(E[tok] @ W_x + h @ W_h + b)
    generated = []
    for k in range(n_max):
        logits = h @ W_o + b_o
        if temperature == 0:
            nxt = np.argmax(logits)
        else:
            c = np.cumsum(_softmax(temperature * logits))
            nxt = np.int64(min(np.searchsorted(c, u[k], side="right"), V - 1))
        generated.append(nxt)
        if nxt == stop_token:
            break
        h = np.tanh(E[nxt] @ W_x + h @ W_h + b)
    return generated
