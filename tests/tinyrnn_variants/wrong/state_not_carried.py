# mistake: tinyrnn.state_not_carried
# each generated id run from the prefix's state through rnn_forward
# made from right/onehot_and_reuse.py, edited

"""TinyRNN reusing the earlier exercises: the embedding as a one-hot product, the loss from
masked_cross_entropy, rnn_forward / rnn_backward / clip_by_global_norm from the earlier files,
a sampler with its own log-sum-exp softmax."""
import numpy as np

from bptt import clip_by_global_norm, rnn_backward
from masking import masked_cross_entropy, sequence_mask
from rnn_forward import rnn_forward


def embed(tokens, E):
    return np.eye(E.shape[0])[np.asarray(tokens)] @ E


def tiny_rnn_forward(tokens, params, h0=None):
    Hs = rnn_forward(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"], h0)
    return Hs @ params["W_o"] + params["b_o"], Hs


def _rows(a):
    return a.reshape(-1, a.shape[-1])


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens)
    targets = np.asarray(targets)
    V = params["E"].shape[0]
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    loss = np.float64(masked_cross_entropy(logits, targets, lengths))
    mask = sequence_mask(lengths, tokens.shape[1])
    count = max(int(mask.sum()), 1)
    z = logits - logits.max(axis=-1, keepdims=True)
    probs = np.exp(z)
    probs /= probs.sum(axis=-1, keepdims=True)
    dlogits = np.where(mask[..., None], probs - np.eye(V)[targets], 0.0) / count
    back = rnn_backward(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"],
                        dlogits @ params["W_o"].T, h0)
    onehot = _rows(np.eye(V)[tokens])
    grads = {"dE": onehot.T @ _rows(back["dX"]), "dW_x": back["dW_x"], "dW_h": back["dW_h"],
             "db": back["db"], "dW_o": _rows(Hs).T @ _rows(dlogits), "db_o": _rows(dlogits).sum(axis=0)}
    return loss, grads


def sgd_step(params, grads, lr, max_norm=None):
    picked = {"d" + k: grads["d" + k] for k in params}
    if max_norm is not None:
        picked, _norm = clip_by_global_norm(picked, max_norm)
    out = {}
    for k, value in params.items():
        out[k] = value - lr * picked["d" + k]
    return out


def _probs(z):
    m = np.max(z)
    return np.exp(z - (m + np.log(np.sum(np.exp(z - m)))))


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    E, W_x, W_h, b = params["E"], params["W_x"], params["W_h"], params["b"]
    V = E.shape[0]
    if temperature != 0 and u is None:
        u = np.random.default_rng().random(n_max)
    Hs = rnn_forward(E[np.asarray(prefix, dtype=int)][None], W_x, W_h, b)
    h = after_prefix = Hs[:, -1]
    result = []
    for k in range(n_max):
        logits = (h @ params["W_o"] + params["b_o"])[0]
        if temperature == 0:
            nxt = int(np.argmax(logits))
        else:
            nxt = int(np.searchsorted(np.cumsum(_probs(logits / temperature)), u[k], side="right"))
            nxt = min(nxt, V - 1)
        result.append(nxt)
        if nxt == stop_token:
            break
        h = rnn_forward(E[[nxt]][None], W_x, W_h, b, after_prefix)[:, -1]
    return result
