# 作业：填充、掩码、带掩码的前向、池化与损失（逐行逐步循环）
# 填充位置可能是 NaN：循环里根本不去读它们。
import math

import numpy as np

print("masking.py (loops) loaded")


def sequence_mask(lengths, T):
    B = len(lengths)
    mask = np.zeros((B, T), dtype=bool)
    for i in range(B):
        for t in range(T):
            if t < int(lengths[i]):
                mask[i, t] = True
    return mask


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    h_last = np.zeros((B, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=np.float64)
        for t in range(int(lengths[i])):          # 只走有效部分
            h = np.tanh(np.dot(X[i, t], W_x) + np.dot(h, W_h) + b)
            Hs[i, t] = h
        h_last[i] = h                              # 长度为 0 时就是 h0[i]
    return Hs, h_last


def last_valid_state(Hs, lengths):
    B, T, H = Hs.shape
    out = np.zeros((B, H))
    for i in range(B):
        L = int(lengths[i])
        if L > 0:
            out[i] = Hs[i, L - 1]
    return out


def masked_mean_pool(Hs, lengths):
    B, T, H = Hs.shape
    out = np.zeros((B, H))
    for i in range(B):
        L = int(lengths[i])
        total = np.zeros(H)
        for t in range(L):
            total = total + Hs[i, t]
        if L > 0:
            out[i] = total / L
    return out


def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    loss_sum = 0.0
    count = 0
    for i in range(B):
        for t in range(int(lengths[i])):
            row = logits[i, t]
            m = max(float(v) for v in row)
            log_z = m + math.log(sum(math.exp(float(v) - m) for v in row))
            loss_sum += log_z - float(row[int(targets[i, t])])
            count += 1
    if count == 0:
        return 0.0
    return loss_sum / count


if __name__ == "__main__":
    print(sequence_mask(np.array([3, 1, 0]), 4))
