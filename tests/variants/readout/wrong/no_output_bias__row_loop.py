"""readout.no_output_bias: per-row loop over the valid steps, logits W_o^T h without b_o."""
import numpy as np


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    out = np.empty((X.shape[0], W_o.shape[1]))
    for i in range(X.shape[0]):
        h = np.zeros(W_h.shape[0])
        for t in range(int(lengths[i])):
            h = np.tanh(W_x.T @ X[i, t] + W_h.T @ h + b)
        logits = W_o.T @ h
        e = np.exp(logits - logits.max())
        out[i] = e / e.sum()
    return out
