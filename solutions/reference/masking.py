"""Padded batches: masks, a masked forward pass, pooling and a masked loss.

Padded positions (t >= lengths[i]) may hold anything, NaN included, so they
are removed with np.where or boolean indexing, never by multiplying with 0
(NaN * 0 is NaN).
"""
import numpy as np

from rnn_step import rnn_step


def sequence_mask(lengths, T):
    """Boolean (B, T) mask, True where t < lengths[i] (a real position)."""
    lengths = np.asarray(lengths, dtype=int)
    return np.arange(T)[None, :] < lengths[:, None]


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    """Forward pass over a padded batch; return (Hs (B, T, H), h_last (B, H)).

    Hs is zero at padded positions. The state stops changing after a row's
    last valid step, so h_last[i] is the state at step lengths[i] - 1, or
    h0[i] when lengths[i] == 0. h0 None means zeros.
    """
    B, T, _ = X.shape
    H = W_h.shape[0]
    mask = sequence_mask(lengths, T)
    X_clean = np.where(mask[:, :, None], X, 0.0)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        valid = mask[:, t, None]
        h_new = rnn_step(X_clean[:, t], h, W_x, W_h, b)
        h = np.where(valid, h_new, h)
        Hs[:, t] = np.where(valid, h_new, 0.0)
    return Hs, h


def last_valid_state(Hs, lengths):
    """Return Hs[i, lengths[i] - 1] for every row, zeros when the length is 0."""
    lengths = np.asarray(lengths, dtype=int)
    B, T, H = Hs.shape
    if T == 0:
        return np.zeros((B, H))
    picked = Hs[np.arange(B), np.clip(lengths - 1, 0, T - 1)]
    return np.where((lengths > 0)[:, None], picked, 0.0)


def masked_mean_pool(Hs, lengths):
    """Mean of each row's valid states, (B, H); zeros for a length-0 row."""
    lengths = np.asarray(lengths, dtype=int)
    mask = sequence_mask(lengths, Hs.shape[1])
    total = np.where(mask[:, :, None], Hs, 0.0).sum(axis=1)
    return total / np.maximum(lengths, 1)[:, None]


def log_softmax(z, axis=-1):
    """Numerically stable log(softmax(z)): shift by the maximum first."""
    shifted = z - np.max(z, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def masked_cross_entropy(logits, targets, lengths):
    """Token-level mean of -log softmax(logits)[target] over valid positions.

    logits (B, T, V), targets (B, T) int (any value at padding, -1 included).
    Returns a Python float, 0.0 when no position is valid.
    """
    mask = sequence_mask(lengths, logits.shape[1])
    if not mask.any():
        return 0.0
    valid_logits = logits[mask]                      # (N, V), padding dropped
    valid_targets = np.asarray(targets)[mask].astype(int)
    log_probs = log_softmax(valid_logits, axis=-1)
    nll = -log_probs[np.arange(len(valid_targets)), valid_targets]
    return float(np.mean(nll))
