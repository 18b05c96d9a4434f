# correct code written another way: full marks, no diagnosis

"""TinyRNN that works on copies: rnn_step and rnn_backward (by keyword) reused, the valid
positions listed in Python, a math.fsum loss, an sgd_step that deep-copies the parameters and
then updates the copies in place, a sampler that always draws u when it is None (also at
temperature 0, where it is ignored) and slices its generated ids off a history list."""
import copy
import math

import numpy as np

from bptt import clip_by_global_norm, rnn_backward
from readout import softmax
from rnn_step import rnn_step


def embed(tokens, E):
    return E[np.asarray(tokens)]


def tiny_rnn_forward(tokens, params, h0=None):
    p = params
    X = embed(tokens, p["E"])
    B, T, _ = X.shape
    H = p["W_h"].shape[0]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float, copy=True)
    Hs = np.empty((B, T, H))
    for t in range(T):
        h = rnn_step(X[:, t, :], h, p["W_x"], p["W_h"], p["b"])
        Hs[:, t, :] = h
    logits = Hs @ p["W_o"]
    logits += p["b_o"]
    return logits, Hs


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.array(tokens, dtype=np.int64)
    targets = np.array(targets, dtype=np.int64)
    B, T = tokens.shape
    positions = [(i, t) for i in range(B) for t in range(min(int(lengths[i]), T))]
    zero = {"d" + k: np.zeros(np.shape(v)) for k, v in params.items()}
    if not positions:
        return 0.0, zero
    n = len(positions)
    rows = np.array([i for i, _ in positions])
    cols = np.array([t for _, t in positions])
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    picked = logits[rows, cols]
    shifted = picked - picked.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    wanted = targets[rows, cols]
    loss = -math.fsum(log_probs[j, wanted[j]] for j in range(n)) / n
    d = softmax(picked, axis=-1)
    d[np.arange(n), wanted] -= 1.0
    d /= n
    dlogits = np.zeros(logits.shape)
    dlogits[rows, cols] = d
    back = rnn_backward(X=embed(tokens, params["E"]), W_x=params["W_x"], W_h=params["W_h"], b=params["b"],
                        dHs=dlogits @ params["W_o"].T, h0=h0)
    grads = copy.deepcopy(zero)
    np.add.at(grads["dE"], tokens, back["dX"])
    for key in ("dW_x", "dW_h", "db"):
        grads[key] += back[key]
    V, H = logits.shape[-1], Hs.shape[-1]
    grads["dW_o"] += Hs.reshape(-1, H).T @ dlogits.reshape(-1, V)
    grads["db_o"] += dlogits.sum(axis=(0, 1))
    return loss, grads


def sgd_step(params, grads, lr, max_norm=None):
    new = copy.deepcopy(params)
    step = {k: grads["d" + k] for k in params}
    if max_norm is not None:
        step, _ = clip_by_global_norm(step, max_norm)
    for k in new:
        new[k] -= lr * step[k]
    return new


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    if u is None:
        u = np.random.default_rng().random(n_max)
    history = list(prefix)
    start = len(history)
    E, W_x, W_h, b = params["E"], params["W_x"], params["W_h"], params["b"]
    h = np.zeros((1, W_h.shape[0]))
    for tok in history:
        h = rnn_step(E[[tok]], h, W_x, W_h, b)
    while len(history) - start < n_max:
        logits = (h @ params["W_o"] + params["b_o"]).ravel()
        if temperature == 0:
            nxt = int(logits.argmax())
        else:
            cdf = np.cumsum(softmax(logits / temperature))
            nxt = int(min(np.searchsorted(cdf, u[len(history) - start], side="right"), logits.size - 1))
        history.append(nxt)
        if nxt == stop_token:
            break
        h = rnn_step(E[[nxt]], h, W_x, W_h, b)
    return history[start:]
