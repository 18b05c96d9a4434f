"""masking.padding_in_loss: every position of the (B*T, V) flattened logits enters the mean."""
import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    flat = logits.reshape(B * T, V)
    m = flat.max(axis=1, keepdims=True)
    logp = flat - m - np.log(np.exp(flat - m).sum(axis=1, keepdims=True))
    t = np.asarray(targets).reshape(-1).astype(int)
    return float(-np.mean(logp[np.arange(B * T), t]))
