# mistake: tinyrnn.u_none_not_drawn
# u turned into a float array without a None check: IndexError on u=None (a 0-d array)
# made from right/einsum.py, edited

"""TinyRNN vectorised with einsum: np.take for the embedding, a hand-written BPTT, np.add.at
for the embedding gradient, clip_by_global_norm and softmax reused from earlier files."""
import numpy as np

from bptt import clip_by_global_norm
from readout import softmax

NAMES = ("E", "W_x", "W_h", "b", "W_o", "b_o")


def embed(tokens, E):
    return np.take(E, np.asarray(tokens, dtype=np.intp), axis=0)


def _states(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    A_in = np.einsum("btd,dh->bth", X, W_x) + b
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.asarray(h0, dtype=float)
    steps = []
    for t in range(T):
        h = np.tanh(A_in[:, t] + np.einsum("bi,ih->bh", h, W_h))
        steps.append(h)
    return np.stack(steps, axis=1)


def tiny_rnn_forward(tokens, params, h0=None):
    Hs = _states(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"], h0)
    logits = np.einsum("bth,hv->btv", Hs, params["W_o"]) + params["b_o"]
    return logits, Hs


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens, dtype=np.intp)
    targets = np.asarray(targets, dtype=np.intp)
    B, T = tokens.shape
    V = params["E"].shape[0]
    H = params["W_h"].shape[0]
    valid = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)
    N = valid.sum()
    if N == 0:
        return 0.0, {"d" + k: np.zeros_like(params[k], dtype=float) for k in NAMES}
    X = embed(tokens, params["E"])
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    m = logits.max(axis=2, keepdims=True)
    logZ = m[..., 0] + np.log(np.exp(logits - m).sum(axis=2))
    onehot = np.eye(V)[targets]
    nll = logZ - np.einsum("btv,btv->bt", logits, onehot)
    loss = float(np.einsum("bt,bt->", nll, valid) / N)

    P = np.exp(logits - logZ[..., None])
    dZ = (P - onehot) * (valid / N)[..., None]
    dW_o = np.einsum("bth,btv->hv", Hs, dZ)
    db_o = np.einsum("btv->v", dZ)
    dHs = np.einsum("btv,hv->bth", dZ, params["W_o"])
    h_init = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    H_prev = np.concatenate([h_init[:, None, :], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    carry = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + carry) * (1.0 - Hs[:, t] ** 2)
        carry = np.einsum("bh,ih->bi", dA[:, t], params["W_h"])
    dX = np.einsum("bth,dh->btd", dA, params["W_x"])
    dE = np.zeros_like(params["E"], dtype=float)
    np.add.at(dE, tokens.ravel(), dX.reshape(-1, dX.shape[-1]))
    db = np.einsum("bth->h", dA)
    grads = {"dE": dE, "dW_x": np.einsum("btd,bth->dh", X, dA),
             "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": db, "dW_o": dW_o, "db_o": db_o}
    return loss, grads


def sgd_step(params, grads, lr, max_norm=None):
    chosen = {name: grads["d" + name] for name in params}
    if max_norm is not None:
        chosen, _ = clip_by_global_norm(chosen, max_norm)
    return {name: np.subtract(params[name], np.multiply(lr, chosen[name])) for name in params}


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    E, W_x, W_h, b, W_o, b_o = (params[name] for name in NAMES)
    V = E.shape[0]
    u = np.asarray(u, dtype=float)
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
