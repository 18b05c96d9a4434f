"""TinyRNN written with explicit loops and a hand-written backward pass."""
import numpy as np

KEYS = ["E", "W_x", "W_h", "b", "W_o", "b_o"]


def embed(tokens, E):
    B, T = np.shape(tokens)
    out = np.zeros((B, T, E.shape[1]))
    for i in range(B):
        for t in range(T):
            out[i, t] = E[tokens[i][t]]
    return out


def tiny_rnn_forward(tokens, params, h0=None):
    X = embed(tokens, params["E"])
    B, T, _ = X.shape
    H = params["W_h"].shape[0]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t, :].dot(params["W_x"]) + h.dot(params["W_h"]) + params["b"])
        Hs[:, t, :] = h
    logits = np.zeros((B, T, params["W_o"].shape[1]))
    for t in range(T):
        logits[:, t, :] = Hs[:, t, :].dot(params["W_o"]) + params["b_o"]
    return logits, Hs


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    grads = {"d" + k: np.zeros(params[k].shape) for k in KEYS}
    B, T = np.shape(tokens)
    n = sum(min(int(lengths[i]), T) for i in range(B))
    if n == 0:
        return 0.0, grads
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    H = Hs.shape[2]
    start = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    loss = 0.0
    dlogits = np.zeros(logits.shape)
    for i in range(B):
        for t in range(int(lengths[i])):
            z = logits[i, t]
            m = np.max(z)
            lse = m + np.log(np.sum(np.exp(z - m)))
            y = int(targets[i][t])
            loss += lse - z[y]
            p = np.exp(z - lse)
            p[y] -= 1.0
            dlogits[i, t] = p / n
    dh_next = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        grads["dW_o"] += Hs[:, t].T.dot(dlogits[:, t])
        grads["db_o"] += dlogits[:, t].sum(axis=0)
        dh = dlogits[:, t].dot(params["W_o"].T) + dh_next
        da = dh * (1.0 - Hs[:, t] ** 2)
        prev = Hs[:, t - 1] if t > 0 else start
        grads["dW_h"] += prev.T.dot(da)
        grads["db"] += da.sum(axis=0)
        dx = da.dot(params["W_x"].T)
        for i in range(B):
            tok = int(tokens[i][t])
            grads["dW_x"] += np.outer(params["E"][tok], da[i])
            grads["dE"][tok] += dx[i]
        dh_next = da.dot(params["W_h"].T)
    return float(loss / n), grads


def sgd_step(params, grads, lr, max_norm=None):
    scale = 1.0
    if max_norm is not None:
        total = 0.0
        for k in params:
            total += float(np.sum(grads["d" + k] ** 2))
        total = total ** 0.5
        if total > max_norm:
            scale = max_norm / total
    return {k: params[k] - lr * scale * grads["d" + k] for k in params}


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    if u is None and temperature > 0:
        u = np.random.default_rng().random(n_max)
    h = np.zeros(params["W_h"].shape[0])
    for tok in prefix:
        h = np.tanh(params["E"][tok].dot(params["W_x"]) + h.dot(params["W_h"]) + params["b"])
    result = []
    V = params["E"].shape[0]
    for k in range(n_max):
        z = h.dot(params["W_o"]) + params["b_o"]
        if temperature == 0:
            best = 0
            for j in range(V):
                if z[j] > z[best]:
                    best = j
            nxt = best
        else:
            s = z / temperature
            e = np.exp(s - np.max(s))
            p = e / np.sum(e)
            acc, nxt = 0.0, V - 1
            for j in range(V):
                acc += p[j]
                if u[k] < acc:
                    nxt = j
                    break
        result.append(nxt)
        if nxt == stop_token:
            break
        h = np.tanh(params["E"][nxt].dot(params["W_x"]) + h.dot(params["W_h"]) + params["b"])
    return result
