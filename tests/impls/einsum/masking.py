"""Masks by np.where (never NaN * 0), log-sum-exp by np.logaddexp.reduce."""
import numpy as np

print("[einsum] masking imported")


def sequence_mask(lengths, T):
    return np.greater.outer(np.asarray(lengths), np.arange(T))


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    m = sequence_mask(lengths, T)[:, :, None]                 # (B, T, 1)
    U = np.einsum("btd,dh->bth", np.where(m, X, 0.0), W_x) + b
    h = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=np.float64)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        cand = np.tanh(U[:, t] + np.einsum("bi,ih->bh", h, W_h))
        h = np.where(m[:, t], cand, h)                         # 填充处保持不变
        Hs[:, t] = np.where(m[:, t], cand, 0.0)
    return Hs, h.copy()


def last_valid_state(Hs, lengths):
    lengths = np.asarray(lengths)
    B, T, H = Hs.shape
    if T == 0:
        return np.zeros((B, H))
    rows = np.arange(B)
    cols = np.clip(lengths - 1, 0, T - 1)
    return np.where((lengths > 0)[:, None], Hs[rows, cols], 0.0)


def masked_mean_pool(Hs, lengths):
    lengths = np.asarray(lengths)
    m = sequence_mask(lengths, Hs.shape[1])
    total = np.einsum("bth->bh", np.where(m[:, :, None], Hs, 0.0))
    count = np.where(lengths > 0, lengths, 1).astype(np.float64)
    return total / count[:, None]


def masked_cross_entropy(logits, targets, lengths):
    m = sequence_mask(lengths, logits.shape[1])
    n = int(np.count_nonzero(m))
    if n == 0:
        return 0.0
    z = np.where(m[:, :, None], logits, 0.0)
    log_p = z - np.logaddexp.reduce(z, axis=-1, keepdims=True)
    idx = np.where(m, targets, 0).astype(np.int64)[:, :, None]
    nll = -np.take_along_axis(log_p, idx, axis=-1)[:, :, 0]
    return float(np.where(m, nll, 0.0).sum() / n)


if __name__ == "__main__":
    print(masked_cross_entropy(np.zeros((1, 2, 3)), np.array([[0, -1]]), np.array([1])))
