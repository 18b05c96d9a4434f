# 作业：RNN 的一次状态更新（全部用循环写，方便自己检查每一项）
# Homework: one RNN step, written with explicit loops.
import math

import numpy as np

print("rnn_step.py (loops) loaded")


def rnn_step(x_t, h_prev, W_x, W_h, b):
    B, d = x_t.shape
    H = W_h.shape[0]
    h_new = np.empty((B, H), dtype=np.float64)
    for i in range(B):
        for j in range(H):
            # 先加偏置，再倒序累加循环项，最后加输入项（求和顺序与参考不同）
            s = float(b[j])
            for k in range(H - 1, -1, -1):
                s += h_prev[i, k] * W_h[k, j]
            for k in range(d):
                s += x_t[i, k] * W_x[k, j]
            h_new[i, j] = math.tanh(s)     # math.tanh 对很大的数也不会溢出
    return h_new


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    states = []
    state = 0.0                # 每次调用都从 0 开始
    i = 0
    while i < len(sequence):
        state = math.tanh(w_h * state + w_x * float(sequence[i]) + b)
        states.append(state)
        i += 1
    return states


if __name__ == "__main__":
    # 种子里的例子
    print([round(s, 4) for s in scalar_rnn([1.0, 0.0, -1.0])])
    rng = np.random.default_rng(0)
    print(rnn_step(rng.normal(size=(2, 3)), np.zeros((2, 4)), rng.normal(size=(3, 4)),
                   rng.normal(size=(4, 4)), np.zeros(4)))
