"""Padded positions are masked out of the sum but the mean still divides by B*T."""
import numpy as np


def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    mask = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    z = np.where(mask[..., None], logits, 0.0)
    z = z - z.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    tgt = np.where(mask, targets, 0)
    nll = -np.take_along_axis(logp, tgt[..., None], axis=-1)[..., 0]
    return float((nll * mask).sum() / (B * T))
