"""tanh written by hand as (e^2a - 1) / (e^2a + 1): inf / inf = NaN for pre-activations above about 355."""
import numpy as np


def tiny_rnn_forward(tokens, params, h0=None):
    X = embed(tokens, params["E"])
    B, T, _ = X.shape
    h = np.zeros((B, params["W_h"].shape[0])) if h0 is None else h0
    Hs = []
    for t in range(T):
        a = X[:, t] @ params["W_x"] + h @ params["W_h"] + params["b"]
        h = (np.exp(2.0 * a) - 1.0) / (np.exp(2.0 * a) + 1.0)
        Hs.append(h)
    Hs = np.stack(Hs, axis=1)
    return Hs @ params["W_o"] + params["b_o"], Hs
