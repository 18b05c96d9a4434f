"""The gradient accumulators live at module level and are never reset, so each call adds to the previous call's gradients."""
import numpy as np

_grads = {}   # 累加梯度


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    h = h0
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    for name, like in (("dW_x", W_x), ("dW_h", W_h), ("db", b)):
        if name not in _grads or _grads[name].shape != like.shape:
            _grads[name] = np.zeros_like(like)
    dX = np.zeros_like(X)
    dh_next = np.zeros((B, H))
    for t in reversed(range(T)):
        da = (dHs[:, t] + dh_next) * (1.0 - Hs[:, t] ** 2)
        h_prev = Hs[:, t - 1] if t > 0 else h0
        _grads["dW_x"] += X[:, t].T @ da
        _grads["dW_h"] += h_prev.T @ da
        _grads["db"] += da.sum(axis=0)
        dX[:, t] = da @ W_x.T
        dh_next = da @ W_h.T
    return {"dX": dX, "dh0": dh_next, "dW_x": _grads["dW_x"].copy(),
            "dW_h": _grads["dW_h"].copy(), "db": _grads["db"].copy()}
