"""tinyrnn.loss_per_sequence: each row's mean, then the mean over all B rows (an empty row counts as 0)."""
import numpy as np


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens, dtype=int)
    targets = np.asarray(targets, dtype=int)
    B, T = tokens.shape
    V = params["E"].shape[0]
    H = params["W_h"].shape[0]
    valid = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)
    n = valid.sum()
    grads = {"d" + k: np.zeros(np.shape(params[k])) for k in PARAMS}  # noqa: F821 -- the reference file's
    if n == 0:
        return 0.0, grads
    logits, Hs = tiny_rnn_forward(tokens, params, h0)  # noqa: F821 -- the reference file's
    z = logits - logits.max(axis=2, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=2, keepdims=True))
    Y = np.eye(V)[targets]
    nll = -(logp * Y).sum(axis=2)
    per_row = valid.sum(axis=1)
    weight = valid / np.maximum(per_row, 1.0)[:, None] / B
    loss = float((nll * weight).sum())
    dz = (np.exp(logp) - Y) * weight[..., None]
    grads["dW_o"] = np.einsum("bth,btv->hv", Hs, dz)
    grads["db_o"] = dz.sum(axis=(0, 1))
    dHs = dz @ params["W_o"].T
    X = params["E"][tokens]
    first = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    prev = np.concatenate([first[:, None], Hs[:, :-1]], axis=1)
    dX = np.zeros(X.shape)
    carry = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        da = (dHs[:, t] + carry) * (1.0 - Hs[:, t] ** 2)
        grads["dW_x"] += X[:, t].T @ da
        grads["dW_h"] += prev[:, t].T @ da
        grads["db"] += da.sum(axis=0)
        dX[:, t] = da @ params["W_x"].T
        carry = da @ params["W_h"].T
    for i in range(B):
        for t in range(T):
            grads["dE"][tokens[i, t]] += dX[i, t]
    return loss, grads
