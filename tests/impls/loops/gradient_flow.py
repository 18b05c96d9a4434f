# 作业：谱半径与梯度随时间的衰减（循环版）
import math

import numpy as np

from rnn_forward import rnn_forward

print("gradient_flow.py (loops) loaded")


def spectral_radius(W):
    radius = 0.0
    for lam in np.linalg.eigvals(W):
        radius = max(radius, math.hypot(lam.real, lam.imag))   # 复特征值取模长
    return radius


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    norms = np.zeros(T)
    g = np.ones((B, H))                  # dL/dHs[:, T-1] 全为 1
    for t in range(T - 1, -1, -1):
        s = 0.0
        for i in range(B):
            for j in range(H):
                s += g[i, j] ** 2
        norms[t] = math.sqrt(s)
        new_g = np.zeros((B, H))
        for i in range(B):
            new_g[i] = np.dot(W_h, g[i] * (1.0 - Hs[i, t] ** 2))
        g = new_g
    return norms


if __name__ == "__main__":
    print(spectral_radius(np.array([[0.0, -1.0], [1.0, 0.0]])))
