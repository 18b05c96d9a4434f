"""tinyrnn.temperature_multiplied: the softmax raised to the power temperature and renormalised
(= softmax(logits * temperature))."""
import numpy as np


def _state(params, token, h):
    return np.tanh(params["E"][token] @ params["W_x"] + h @ params["W_h"] + params["b"])


def _probabilities(logits, temperature):
    z = np.asarray(logits, dtype=float)
    w = np.exp(z - np.max(z))
    p = (w / np.sum(w)) ** temperature
    return p / p.sum()


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
        if nxt == stop_token:
            break
        h = _state(params, nxt, h)
        k += 1
    return generated
