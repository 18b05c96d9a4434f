"""BPTT with einsum for the parameter gradients; clipping with np.vdot."""
import numpy as np

print("[einsum] bptt imported")


def _forward(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=np.float64)
    H_all = np.zeros((B, T + 1, H))          # H_all[:, 0] = h0, H_all[:, t+1] = h_t
    H_all[:, 0] = h
    for t in range(T):
        H_all[:, t + 1] = np.tanh(np.einsum("bd,dh->bh", X[:, t], W_x)
                                  + np.einsum("bi,ih->bh", H_all[:, t], W_h) + b)
    return H_all


def _grads(X, W_x, W_h, b, dHs, h0, cut):
    B, T, _ = X.shape
    H = W_h.shape[0]
    H_all = _forward(X, W_x, W_h, b, h0)
    dA = np.zeros((B, T, H))
    carry = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + carry) * (1.0 - np.square(H_all[:, t + 1]))
        carry = np.einsum("bh,ih->bi", dA[:, t], W_h)
        if t > 0 and cut(t):
            carry = np.zeros_like(carry)      # 截断：梯度不跨过分段边界
    return {
        "dX": np.einsum("bth,dh->btd", dA, W_x),
        "dh0": carry,
        "dW_x": np.einsum("btd,bth->dh", X, dA),
        "dW_h": np.einsum("bti,bth->ih", H_all[:, :T], dA),
        "db": np.einsum("bth->h", dA),
    }


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    return _grads(X, W_x, W_h, b, dHs, h0, cut=lambda t: False)


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    k = int(k)
    return _grads(X, W_x, W_h, b, dHs, h0, cut=lambda t: t % k == 0)


def clip_by_global_norm(grads, max_norm):
    total_norm = float(np.sqrt(np.sum([np.vdot(g, g) for g in grads.values()])))
    scale = min(1.0, max_norm / total_norm) if total_norm > 0 else 1.0
    return {key: np.multiply(g, scale) for key, g in grads.items()}, total_norm


if __name__ == "__main__":
    print(clip_by_global_norm({"w": np.array([[6.0, 8.0]])}, 5.0))
