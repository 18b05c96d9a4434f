# 作业：沿时间反向传播、全局范数裁剪、截断 BPTT（循环版）
import math

import numpy as np

from rnn_forward import rnn_forward

print("bptt.py (loops) loaded")


def _backward_chunked(X, W_x, W_h, b, dHs, h0, k):
    """对每一段 [s, s+k) 单独反向传播；进入一段的状态当作常数。"""
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=np.float64)
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dX = np.zeros((B, T, d))
    dW_x = np.zeros((d, H))
    dW_h = np.zeros((H, H))
    db = np.zeros(H)
    dh0 = np.zeros((B, H))
    for start in range(0, T, k):
        stop = min(start + k, T)
        for i in range(B):
            carry = np.zeros(H)                     # 从下一步传回来的梯度
            for t in range(stop - 1, start - 1, -1):
                dh = dHs[i, t] + carry
                da = dh * (1.0 - Hs[i, t] * Hs[i, t])
                h_prev = Hs[i, t - 1] if t > 0 else h0[i]
                dW_x += np.outer(X[i, t], da)
                dW_h += np.outer(h_prev, da)
                db += da
                dX[i, t] = np.dot(W_x, da)
                carry = np.dot(W_h, da)
            if start == 0:
                dh0[i] = carry                      # 只有第一段的梯度流到 h0
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    T = X.shape[1]
    return _backward_chunked(X, W_x, W_h, b, dHs, h0, max(T, 1))


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    return _backward_chunked(X, W_x, W_h, b, dHs, h0, int(k))


def clip_by_global_norm(grads, max_norm):
    squares = 0.0
    for name in grads:
        for v in np.ravel(grads[name]):
            squares += float(v) * float(v)
    total_norm = math.sqrt(squares)
    factor = 1.0
    if total_norm > max_norm:
        factor = max_norm / total_norm
    clipped = {}
    for name in grads:
        clipped[name] = np.array(grads[name], dtype=np.float64) * factor   # 新数组
    return clipped, total_norm


if __name__ == "__main__":
    g = {"a": np.array([3.0, 4.0])}
    print(clip_by_global_norm(g, 1.0))
