"""Two mistakes at once (issue 36 item 3): tinyrnn.h0_overwritten (hs[-1] = h0 in a time-major array) and
tinyrnn.embedding_grad_overwritten (dE[tokens] += g keeps one position of a repeated token)."""
import numpy as np


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens, targets = np.asarray(tokens, dtype=int), np.asarray(targets, dtype=int)
    B, T = tokens.shape
    W_x, W_h, b, W_o = params["W_x"], params["W_h"], params["b"], params["W_o"]
    valid = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).T            # (T, B)
    n = int(valid.sum())
    grads = {"d" + k: np.zeros(np.shape(v)) for k, v in params.items()}
    if n == 0:
        return 0.0, grads
    xs = params["E"][tokens.T]                                                   # (T, B, d)
    hs = np.zeros((T, B, W_h.shape[0]))
    hs[-1] = 0 if h0 is None else h0
    for t in range(T):
        hs[t] = np.tanh(xs[t] @ W_x + hs[t - 1] @ W_h + b)
    z = hs @ W_o + params["b_o"]
    z = z - z.max(axis=2, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=2, keepdims=True))
    tgt = targets.T
    picked = np.take_along_axis(logp, tgt[..., None], axis=2)[..., 0]
    loss = -(picked * valid).sum() / n
    dz = np.exp(logp)
    np.put_along_axis(dz, tgt[..., None], np.take_along_axis(dz, tgt[..., None], axis=2) - 1, axis=2)
    dz *= valid[..., None] / n
    grads["dW_o"] = np.einsum("tbh,tbv->hv", hs, dz)
    grads["db_o"] = dz.sum(axis=(0, 1))
    dh = np.zeros_like(hs[0])
    dX = np.zeros((B, T, W_x.shape[0]))
    for t in range(T - 1, -1, -1):
        da = (dz[t] @ W_o.T + dh) * (1 - hs[t] ** 2)
        grads["db"] += da.sum(0)
        grads["dW_x"] += xs[t].T @ da
        grads["dW_h"] += hs[t - 1].T @ da
        dX[:, t] = da @ W_x.T
        dh = da @ W_h.T
    grads["dE"][tokens] += dX                 # fancy indexing: one position per token kept
    return float(loss), grads
