"""Spectral radius from np.linalg.eigvals; gradient norms with einsum."""
import numpy as np

from rnn_forward import rnn_forward

print("[einsum] gradient_flow imported")


def spectral_radius(W):
    ev = np.linalg.eigvals(W)                      # 一般矩阵：特征值可能是复数
    return float(np.max(np.hypot(ev.real, ev.imag)))


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.empty(T)
    g = np.ones((B, H))
    for t in reversed(range(T)):
        out[t] = np.sqrt(np.einsum("bh,bh->", g, g))
        g = np.einsum("bh,ih->bi", g * (1.0 - Hs[:, t] ** 2), W_h)
    return out


if __name__ == "__main__":
    print(spectral_radius(0.9 * np.array([[0.0, -1.0], [1.0, 0.0]])))
