"""tinyrnn.u_none_not_drawn: the loop zips over u (a list of zeros at temperature 0); zip(None) raises."""
import numpy as np


def _state(params, token, h):
    return np.tanh(params["E"][token] @ params["W_x"] + h @ params["W_h"] + params["b"])


def _probabilities(logits, temperature):
    scaled = np.asarray(logits, dtype=float) / temperature
    w = np.exp(scaled - np.max(scaled))
    return w / np.sum(w)


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    V = params["E"].shape[0]
    draws = u if temperature > 0 else [0.0] * n_max
    h = np.zeros(params["W_h"].shape[0])
    for token in prefix:
        h = _state(params, int(token), h)
    generated = []
    for k, uk in zip(range(n_max), draws):
        logits = h @ params["W_o"] + params["b_o"]
        if temperature == 0:
            nxt = int(logits.argmax())
        else:
            nxt = min(int(np.searchsorted(np.cumsum(_probabilities(logits, temperature)), uk)), V - 1)
        generated.append(nxt)
        if nxt == stop_token:
            break
        h = _state(params, nxt, h)
    return generated
