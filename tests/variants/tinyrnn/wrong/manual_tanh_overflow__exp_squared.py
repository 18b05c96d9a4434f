"""tinyrnn.manual_tanh_overflow: e = exp(a) and tanh = (e*e - 1) / (e*e + 1): NaN once e*e overflows (a above ~355)."""
import numpy as np


def _tanh(a):
    e = np.exp(a)
    return (e * e - 1.0) / (e * e + 1.0)


def tiny_rnn_forward(tokens, params, h0=None):
    tokens = np.asarray(tokens, dtype=int)
    B, T = tokens.shape
    h = np.zeros((B, params["W_h"].shape[0])) if h0 is None else h0
    Hs = []
    for t in range(T):
        h = _tanh(params["E"][tokens[:, t]] @ params["W_x"] + h @ params["W_h"] + params["b"])
        Hs.append(h)
    Hs = np.stack(Hs, axis=1)
    return Hs @ params["W_o"] + params["b_o"], Hs
