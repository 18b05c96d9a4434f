"""softmax via log-sum-exp; many-to-one readout with its own masked pass."""
import numpy as np

print("[einsum] readout imported")


def softmax(z, axis=-1):
    # log-sum-exp 写法，logits 很大也不会溢出
    return np.exp(z - np.logaddexp.reduce(z, axis=axis, keepdims=True))


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    B, T, _ = X.shape
    H = W_h.shape[0]
    valid = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    h = np.zeros((B, H))
    for t in range(T):
        x = np.where(valid[:, t, None], X[:, t], 0.0)
        h_new = np.tanh(np.einsum("bd,dh->bh", x, W_x) + np.einsum("bi,ih->bh", h, W_h) + b)
        h = np.where(valid[:, t, None], h_new, h)
    return softmax(np.einsum("bh,hc->bc", h, W_o) + b_o, axis=-1)


if __name__ == "__main__":
    print(softmax(np.array([[1e3, 0.0], [0.0, 1e3]]), axis=0))
