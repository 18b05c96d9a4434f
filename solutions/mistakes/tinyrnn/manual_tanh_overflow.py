"""tanh written by hand as (e^a - e^-a) / (e^a + e^-a) overflows to NaN for pre-activations beyond about 710 in size."""
import numpy as np


def tiny_rnn_forward(tokens, params, h0=None):
    X = embed(tokens, params["E"])
    B, T, _ = X.shape
    h = np.zeros((B, params["W_h"].shape[0])) if h0 is None else h0
    Hs = []
    for t in range(T):
        a = X[:, t] @ params["W_x"] + h @ params["W_h"] + params["b"]
        h = (np.exp(a) - np.exp(-a)) / (np.exp(a) + np.exp(-a))
        Hs.append(h)
    Hs = np.stack(Hs, axis=1)
    return Hs @ params["W_o"] + params["b_o"], Hs
