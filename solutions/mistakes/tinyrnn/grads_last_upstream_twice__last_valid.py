"""The loss's own BPTT loop seeds the carried gradient with each sequence's last VALID step's upstream
(a per-sequence port) before a loop that adds every step's upstream: that step's is counted twice
(bptt.last_upstream_twice inside the capstone's gradients)."""
import numpy as np


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens, dtype=int)
    targets = np.asarray(targets, dtype=int)
    B, T = tokens.shape
    mask = np.arange(T)[None, :] < np.asarray(lengths, dtype=int)[:, None]
    count = int(mask.sum())
    grads = {"d" + k: np.zeros_like(params[k], dtype=float) for k in PARAMS}
    if count == 0:
        return 0.0, grads
    X = embed(tokens, params["E"])
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]
    loss = float(-picked[mask].sum() / count)
    dlogits = np.exp(log_p)
    np.put_along_axis(dlogits, targets[..., None],
                      np.take_along_axis(dlogits, targets[..., None], axis=-1) - 1.0, axis=-1)
    dlogits = np.where(mask[..., None], dlogits, 0.0) / count
    grads["dW_o"] = np.einsum("bth,btv->hv", Hs, dlogits)
    grads["db_o"] = dlogits.sum(axis=(0, 1))
    dHs = dlogits @ params["W_o"].T
    H = params["W_h"].shape[0]
    h_first = np.zeros((B, H)) if h0 is None else h0
    dX = np.zeros_like(X, dtype=float)
    last = np.minimum(np.asarray(lengths, dtype=int), T) - 1    # each sequence's last valid step (-1: none)
    dhnext = np.zeros((B, H))
    for t in reversed(range(T)):
        dh = dHs[:, t] + dhnext + np.where((last == t)[:, None], dHs[:, t], 0.0)   # the seed, entering there
        da = dh * (1.0 - Hs[:, t] ** 2)
        h_prev = Hs[:, t - 1] if t > 0 else h_first
        grads["dW_x"] += X[:, t].T @ da
        grads["dW_h"] += h_prev.T @ da
        grads["db"] += da.sum(axis=0)
        dX[:, t] = da @ params["W_x"].T
        dhnext = da @ params["W_h"].T
    np.add.at(grads["dE"], tokens, dX)
    return loss, grads
