"""u is turned into an array without a None test: np.asarray(None) is 0-d, and indexing it raises IndexError."""
import numpy as np


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    """Generated ids (a list): the prefix is run from a zero state, then up to n_max ids are drawn,
    each fed back in; stops right after emitting stop_token (included)."""
    E, W_x, W_h, b, W_o, b_o = (params[k] for k in PARAMS)
    V = E.shape[0]
    u = np.asarray(u, dtype=float)
    h = np.zeros((1, W_h.shape[0]))
    for token in prefix:
        h = rnn_step(E[int(token)][None, :], h, W_x, W_h, b)
    out = []
    for k in range(n_max):
        logits = (h @ W_o + b_o)[0]
        if temperature == 0:
            nxt = int(np.argmax(logits))
        else:
            p = softmax(logits / temperature)
            nxt = min(int(np.searchsorted(np.cumsum(p), u[k], side="right")), V - 1)
        out.append(nxt)
        if nxt == stop_token:
            break
        h = rnn_step(E[nxt][None, :], h, W_x, W_h, b)
    return out
