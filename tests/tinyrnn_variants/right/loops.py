# correct code written another way: full marks, no diagnosis

"""TinyRNN with explicit Python loops over the batch and over time (np.tanh at each step),
a backward pass written by hand, a NumPy float64 loss and NumPy ints in the sample."""
import numpy as np

KEYS = ["E", "W_x", "W_h", "b", "W_o", "b_o"]


def embed(tokens, E):
    tokens = np.asarray(tokens)
    B, T = tokens.shape
    out = np.empty((B, T, E.shape[1]), dtype=E.dtype)
    for i in range(B):
        for t in range(T):
            out[i, t] = E[tokens[i, t]]
    return out


def tiny_rnn_forward(tokens, params, h0=None):
    X = embed(tokens, params["E"])
    B, T, _ = X.shape
    H = params["W_h"].shape[0]
    V = params["W_o"].shape[1]
    Hs = np.zeros((B, T, H))
    logits = np.zeros((B, T, V))
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        for t in range(T):
            h = np.tanh(X[i, t] @ params["W_x"] + h @ params["W_h"] + params["b"])
            Hs[i, t] = h
            logits[i, t] = h @ params["W_o"] + params["b_o"]
    return logits, Hs


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens)
    targets = np.asarray(targets)
    B, T = tokens.shape
    lengths = [min(int(n), T) for n in lengths]
    n_valid = sum(lengths)
    grads = {"d" + k: np.zeros(np.shape(params[k])) for k in KEYS}
    if n_valid == 0:
        return 0.0, grads
    E, W_x, W_h, W_o = params["E"], params["W_x"], params["W_h"], params["W_o"]
    H = W_h.shape[0]
    X = embed(tokens, E)
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    total = 0.0
    for i in range(B):
        dh_next = np.zeros(H)
        for t in reversed(range(T)):
            if t < lengths[i]:
                z = logits[i, t]
                m = np.max(z)
                lse = m + np.log(np.sum(np.exp(z - m)))
                total += lse - z[targets[i, t]]
                dz = np.exp(z - lse)
                dz[targets[i, t]] -= 1.0
                dz = dz / n_valid
                grads["dW_o"] += np.outer(Hs[i, t], dz)
                grads["db_o"] += dz
                dh = dz @ W_o.T + dh_next
            else:
                dh = dh_next
            da = dh * (1.0 - Hs[i, t] ** 2)
            if t > 0:
                h_prev = Hs[i, t - 1]
            else:
                h_prev = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
            grads["dW_x"] += np.outer(X[i, t], da)
            grads["dW_h"] += np.outer(h_prev, da)
            grads["db"] += da
            grads["dE"][tokens[i, t]] += da @ W_x.T
            dh_next = da @ W_h.T
    loss = np.float64(total / n_valid)
    return loss, grads


def sgd_step(params, grads, lr, max_norm=None):
    scale = 1.0
    if max_norm is not None:
        squares = 0.0
        for k in params:
            g = np.asarray(grads["d" + k], dtype=float)
            squares += float(np.sum(g * g))
        norm = squares ** 0.5
        if norm > max_norm:
            scale = max_norm / norm
    new = {}
    for k in params:
        new[k] = params[k] - lr * (scale * np.asarray(grads["d" + k], dtype=float))
    return new


def _softmax(z):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()


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
            c = np.cumsum(_softmax(logits / temperature))
            nxt = np.int64(min(np.searchsorted(c, u[k], side="right"), V - 1))
        generated.append(nxt)
        if nxt == stop_token:
            break
        h = np.tanh(E[nxt] @ W_x + h @ W_h + b)
    return generated
