"""min-char-rnn keeps the initial state at hs[-1]; ported to an array Hs (B, T, H), Hs[:, -1] = h0 is
overwritten by the last step's state, so the backward pass reads the last state where the state
before step 0 belongs: dW_h's first-step term uses h_{T-1} instead of h0."""
import numpy as np


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens, targets = np.asarray(tokens, dtype=int), np.asarray(targets, dtype=int)
    B, T = tokens.shape
    E, W_x, W_h, b, W_o, b_o = (params[k] for k in ("E", "W_x", "W_h", "b", "W_o", "b_o"))
    H = W_h.shape[0]
    mask = np.arange(T)[None, :] < np.asarray(lengths, dtype=int)[:, None]
    count = int(mask.sum())
    grads = {"d" + k: np.zeros(np.shape(params[k])) for k in ("E", "W_x", "W_h", "b", "W_o", "b_o")}
    if count == 0:
        return 0.0, grads
    X = E[tokens]
    Hs = np.zeros((B, T, H))
    Hs[:, -1] = 0.0 if h0 is None else h0          # hs[-1] = hprev
    for t in range(T):
        Hs[:, t] = np.tanh(X[:, t] @ W_x + Hs[:, t - 1] @ W_h + b)
    logits = Hs @ W_o + b_o
    z = logits - logits.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    picked = np.take_along_axis(p, targets[..., None], axis=-1)[..., 0]
    loss = float(-np.log(picked)[mask].sum() / count)
    dlogits = p.copy()
    np.put_along_axis(dlogits, targets[..., None], np.take_along_axis(p, targets[..., None], axis=-1) - 1, axis=-1)
    dlogits = np.where(mask[..., None], dlogits, 0.0) / count
    grads["dW_o"] = np.einsum("bth,btv->hv", Hs, dlogits)
    grads["db_o"] = dlogits.sum(axis=(0, 1))
    dHs = dlogits @ W_o.T
    dnext = np.zeros((B, H))
    for t in reversed(range(T)):
        da = (dHs[:, t] + dnext) * (1 - Hs[:, t] ** 2)
        grads["db"] += da.sum(axis=0)
        grads["dW_x"] += X[:, t].T @ da
        grads["dW_h"] += Hs[:, t - 1].T @ da            # at t = 0: Hs[:, -1], the last state by now
        np.add.at(grads["dE"], tokens[:, t], da @ W_x.T)
        dnext = da @ W_h.T
    return loss, grads
