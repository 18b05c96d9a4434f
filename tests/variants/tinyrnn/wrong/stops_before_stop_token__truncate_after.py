"""tinyrnn.stops_before_stop_token: n_max ids generated, then cut at the first stop token (itself dropped)."""
import numpy as np


def _state(params, token, h):
    return np.tanh(params["E"][token] @ params["W_x"] + h @ params["W_h"] + params["b"])


def _probabilities(logits, temperature):
    scaled = np.asarray(logits, dtype=float) / temperature
    w = np.exp(scaled - np.max(scaled))
    return w / np.sum(w)


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    V = params["E"].shape[0]
    if u is None and temperature > 0:
        u = np.random.default_rng().random(n_max)
    h = np.zeros(params["W_h"].shape[0])
    for token in prefix:
        h = _state(params, int(token), h)
    generated = []
    k = 0
    while k < n_max:
        logits = h @ params["W_o"] + params["b_o"]
        if temperature == 0:
            nxt = int(logits.argmax())
        else:
            nxt = min(int(np.searchsorted(np.cumsum(_probabilities(logits, temperature)), u[k])), V - 1)
        generated.append(nxt)
        h = _state(params, nxt, h)
        k += 1
    if stop_token in generated:
        generated = generated[:generated.index(stop_token)]
    return generated
