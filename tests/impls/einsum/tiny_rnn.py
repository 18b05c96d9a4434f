"""TinyRNN with a one-hot embedding, einsum and the earlier exercises' functions."""
import numpy as np

from bptt import clip_by_global_norm, rnn_backward
from masking import masked_cross_entropy, sequence_mask
from readout import softmax
from rnn_forward import rnn_forward


def embed(tokens, E):
    return np.einsum("btv,vd->btd", np.eye(E.shape[0])[tokens], E)


def tiny_rnn_forward(tokens, params, h0=None):
    Hs = rnn_forward(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"], h0=h0)
    return np.einsum("bth,hv->btv", Hs, params["W_o"]) + params["b_o"], Hs


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    mask = sequence_mask(lengths, tokens.shape[1])
    loss = masked_cross_entropy(logits, targets, lengths)
    V = params["E"].shape[0]
    count = max(int(mask.sum()), 1)
    dlogits = (softmax(logits) - np.eye(V)[targets]) * mask[..., None] / count
    back = rnn_backward(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"],
                        np.einsum("btv,hv->bth", dlogits, params["W_o"]), h0=h0)
    one_hot = np.eye(V)[tokens]
    return loss, {"dE": np.einsum("btv,btd->vd", one_hot, back["dX"]), "dW_x": back["dW_x"], "dW_h": back["dW_h"],
                  "db": back["db"], "dW_o": np.einsum("bth,btv->hv", Hs, dlogits),
                  "db_o": np.einsum("btv->v", dlogits)}


def sgd_step(params, grads, lr, max_norm=None):
    g = {k: grads["d" + k] for k in params}
    if max_norm is not None:
        g, _ = clip_by_global_norm(g, max_norm)
    return {k: params[k] - lr * g[k] for k in params}


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    rng = np.random.default_rng()
    state = np.zeros((1, params["W_h"].shape[0]))

    def advance(tok, state):
        return rnn_forward(params["E"][[[tok]]], params["W_x"], params["W_h"], params["b"], h0=state)[:, -1]

    for tok in prefix:
        state = advance(tok, state)
    out = []
    while len(out) < n_max:
        logits = np.einsum("bh,hv->bv", state, params["W_o"])[0] + params["b_o"]
        if temperature == 0:
            nxt = np.argmax(logits)
        else:
            draw = rng.random() if u is None else u[len(out)]
            nxt = min(np.searchsorted(np.cumsum(softmax(logits / temperature)), draw, side="right"), len(logits) - 1)
        out.append(np.int64(nxt))
        if nxt == stop_token:
            break
        state = advance(int(nxt), state)
    return out
