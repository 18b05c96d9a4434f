"""Forward pass: the input projections of all steps at once, then the recurrence."""
import numpy as np

print("[einsum] rnn_forward imported")


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    U = np.einsum("btd,dh->bth", X, W_x) + b        # 所有时间步的输入项一次算完
    h = np.zeros((B, H)) if h0 is None else h0
    states = []
    for t in range(T):
        h = np.tanh(U[:, t] + np.einsum("bi,ih->bh", h, W_h))
        states.append(h)
    if not states:
        return np.zeros((B, 0, H))
    return np.stack(states, axis=1)


if __name__ == "__main__":
    print(rnn_forward(np.zeros((1, 2, 1)), np.ones((1, 2)), np.eye(2), np.ones(2)))
