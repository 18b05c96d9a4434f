# mistake: tinyrnn.embed_squeezed
# the axes of size 1 dropped by hand with reshape
# made from right/time_major.py, with its embed() replaced

"""TinyRNN time-major: reshape-based embedding, logaddexp for the log-partition, the valid
positions gathered by boolean indexing, truncated_rnn_backward with k = T, np.bincount for the
embedding gradient, a hand-written global norm and a hand-written searchsorted."""
import numpy as np

from bptt import truncated_rnn_backward

ORDER = ("E", "W_x", "W_h", "b", "W_o", "b_o")


def embed(tokens, E):
    tokens = np.asarray(tokens, dtype=np.int64)
    rows = E[tokens.ravel()].reshape(tokens.shape + (E.shape[1],))
    return rows.reshape(tuple(n for n in rows.shape if n != 1))



def tiny_rnn_forward(tokens, params, h0=None):
    X = embed(tokens, params["E"])
    B, T, _ = X.shape
    h = np.zeros((B, params["W_h"].shape[0])) if h0 is None else np.array(h0, dtype=float)
    states = []
    for x_t in X.transpose(1, 0, 2):
        h = np.tanh(np.dot(x_t, params["W_x"]) + np.dot(h, params["W_h"]) + params["b"])
        states.append(h)
    Hs = np.stack(states).transpose(1, 0, 2)
    return np.dot(Hs, params["W_o"]) + params["b_o"], Hs


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    B, T = tokens.shape
    V, d = params["E"].shape
    where = np.arange(T)[None, :] < np.asarray(lengths, dtype=np.int64)[:, None]
    N = int(np.count_nonzero(where))
    if N == 0:
        return 0.0, {"d" + k: np.zeros(params[k].shape, dtype=np.float64) for k in ORDER}
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    Z = logits[where]
    y = targets[where]
    log_partition = np.logaddexp.reduce(Z, axis=1)
    nll = log_partition - Z[np.arange(N), y]
    loss = nll.sum().item() / N
    P = np.exp(Z - log_partition[:, None])
    P[np.arange(N), y] -= 1.0
    dlogits = np.zeros((B, T, V))
    dlogits[where] = P / N
    X = embed(tokens, params["E"])
    back = truncated_rnn_backward(X, params["W_x"], params["W_h"], params["b"],
                                  np.dot(dlogits, params["W_o"].T), T, h0=h0)
    flat_dX = back["dX"].reshape(B * T, d)
    dE = np.stack([np.bincount(tokens.ravel(), weights=flat_dX[:, j], minlength=V) for j in range(d)], axis=1)
    grads = {"dE": dE, "dW_x": back["dW_x"], "dW_h": back["dW_h"], "db": back["db"],
             "dW_o": np.tensordot(Hs, dlogits, axes=([0, 1], [0, 1])), "db_o": dlogits.sum(axis=(0, 1))}
    return loss, grads


def sgd_step(params, grads, lr, max_norm=None):
    keys = list(params)
    gs = [np.asarray(grads["d" + k], dtype=np.float64) for k in keys]
    factor = 1.0
    if max_norm is not None:
        norm = np.linalg.norm(np.concatenate([g.ravel() for g in gs]))
        if norm > max_norm:
            factor = max_norm / norm
    return dict(zip(keys, [params[k] - lr * factor * g for k, g in zip(keys, gs)]))


def _stable_softmax(z):
    shifted = z - np.max(z)
    e = np.exp(shifted)
    return e / np.sum(e)


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    E, W_x, W_h, b, W_o, b_o = map(params.get, ORDER)
    V = len(E)
    if u is None and temperature > 0:
        u = np.random.default_rng().random(size=n_max)

    def advance(h, token):
        return np.tanh(np.dot(E[token], W_x) + np.dot(h, W_h) + b)

    h = np.zeros(W_h.shape[0])
    for token in prefix:
        h = advance(h, token)
    out = []
    while len(out) < n_max:
        logits = np.dot(h, W_o) + b_o
        if temperature == 0:
            nxt = np.flatnonzero(logits == logits.max())[0]
        else:
            cumulative = np.cumsum(_stable_softmax(logits / temperature))
            draw = u[len(out)]
            nxt = 0
            while nxt < V - 1 and cumulative[nxt] <= draw:
                nxt += 1
            nxt = np.int64(nxt)
        out.append(nxt)
        if nxt == stop_token:
            break
        h = advance(h, nxt)
    return out
