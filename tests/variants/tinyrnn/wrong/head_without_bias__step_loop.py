"""tinyrnn.head_without_bias: a step loop computing the logits of each state as h @ W_o."""
import numpy as np

from rnn_step import rnn_step


def tiny_rnn_forward(tokens, params, h0=None):
    tokens = np.asarray(tokens, dtype=int)
    B, T = tokens.shape
    h = np.zeros((B, params["W_h"].shape[0])) if h0 is None else np.asarray(h0, dtype=float)
    states, outs = [], []
    for t in range(T):
        h = rnn_step(params["E"][tokens[:, t]], h, params["W_x"], params["W_h"], params["b"])
        states.append(h)
        outs.append(np.dot(h, params["W_o"]))
    return np.stack(outs, axis=1), np.stack(states, axis=1)
