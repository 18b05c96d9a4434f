"""TinyRNN, the chapter's character model: embedding, one RNN layer, a linear head.

params: E (V, d), W_x (d, H), W_h (H, H), b (H,), W_o (H, V), b_o (V,).
tokens, targets: int arrays (B, T) of ids in [0, V). It reuses the earlier
exercises: the forward pass, the backward pass, clipping and softmax.
"""
import numpy as np

from bptt import clip_by_global_norm, rnn_backward
from readout import softmax
from rnn_forward import rnn_forward
from rnn_step import rnn_step

PARAMS = ("E", "W_x", "W_h", "b", "W_o", "b_o")


def embed(tokens, E):
    """(B, T, d): row E[tokens[i, t]] at every position."""
    return E[np.asarray(tokens, dtype=int)]


def tiny_rnn_forward(tokens, params, h0=None):
    """(logits (B, T, V), Hs (B, T, H))."""
    Hs = rnn_forward(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"], h0)
    return Hs @ params["W_o"] + params["b_o"], Hs


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    """The token-level mean cross-entropy over valid positions, and its exact gradients.

    Returns (loss: float, grads: dict dE, dW_x, dW_h, db, dW_o, db_o).
    """
    tokens = np.asarray(tokens, dtype=int)
    targets = np.asarray(targets, dtype=int)
    B, T = tokens.shape
    mask = np.arange(T)[None, :] < np.asarray(lengths, dtype=int)[:, None]   # (B, T)
    count = int(mask.sum())
    grads = {"d" + k: np.zeros_like(params[k], dtype=float) for k in PARAMS}
    if count == 0:
        return 0.0, grads
    X = embed(tokens, params["E"])
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]
    loss = float(-picked[mask].sum() / count)

    # d loss / d logits: (softmax - one_hot) / count at valid positions, zero at padding
    dlogits = np.exp(log_p)
    np.put_along_axis(dlogits, targets[..., None],
                      np.take_along_axis(dlogits, targets[..., None], axis=-1) - 1.0, axis=-1)
    dlogits = np.where(mask[..., None], dlogits, 0.0) / count
    grads["dW_o"] = np.einsum("bth,btv->hv", Hs, dlogits)
    grads["db_o"] = dlogits.sum(axis=(0, 1))
    back = rnn_backward(X, params["W_x"], params["W_h"], params["b"], dlogits @ params["W_o"].T, h0)
    grads["dW_x"], grads["dW_h"], grads["db"] = back["dW_x"], back["dW_h"], back["db"]
    # a token met several times adds up the gradients of all its positions (not E[tokens] = ...)
    np.add.at(grads["dE"], tokens, back["dX"])
    return loss, grads


def sgd_step(params, grads, lr, max_norm=None):
    """A new dict params[k] - lr * grads["d" + k], the grads first clipped together by their
    global norm when max_norm is given. Nothing passed in is modified."""
    used = {"d" + k: grads["d" + k] for k in params}
    if max_norm is not None:
        used, _ = clip_by_global_norm(used, max_norm)
    return {k: params[k] - lr * used["d" + k] for k in params}


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    """Generated ids (a list): the prefix is run from a zero state, then up to n_max ids are drawn,
    each fed back in; stops right after emitting stop_token (included)."""
    E, W_x, W_h, b, W_o, b_o = (params[k] for k in PARAMS)
    V = E.shape[0]
    if temperature > 0 and u is None:
        u = np.random.default_rng().random(n_max)
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
