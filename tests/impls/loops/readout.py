# 作业：多对一读出（循环版）
import math

import numpy as np

from masking import rnn_forward_masked

print("readout.py (loops) loaded")


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    moved = np.moveaxis(z, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    out = np.empty_like(flat)
    for r in range(flat.shape[0]):
        m = max(flat[r])                         # 先减去最大值，避免溢出
        exps = [math.exp(v - m) for v in flat[r]]
        s = sum(exps)
        for c in range(flat.shape[1]):
            out[r, c] = exps[c] / s
    return np.moveaxis(out.reshape(moved.shape), -1, axis)


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    _, h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)
    B = h_last.shape[0]
    C = W_o.shape[1]
    logits = np.zeros((B, C))
    for i in range(B):
        logits[i] = np.dot(h_last[i], W_o) + b_o
    return softmax(logits, axis=1)


if __name__ == "__main__":
    print(softmax(np.array([[1000.0, 999.0, 0.0]])))
