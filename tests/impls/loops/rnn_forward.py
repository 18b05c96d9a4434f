# 作业：把 RNN 沿时间展开（循环版）
import numpy as np

from rnn_step import rnn_step

print("rnn_forward.py (loops) loaded")


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    if h0 is None:
        h = np.zeros((B, H))
    else:
        h = np.array(h0, dtype=np.float64)      # 复制一份，不改调用者的 h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = rnn_step(X[:, t, :], h, W_x, W_h, b)
        for i in range(B):
            Hs[i, t, :] = h[i]
    return Hs


if __name__ == "__main__":
    X = np.ones((1, 3, 2))
    print(rnn_forward(X, np.eye(2, 3), np.eye(3) * 0.5, np.zeros(3)))
