"""Exercise `gradient_flow`: why gradients vanish or explode through time.

练习 `gradient_flow`：梯度为何沿时间消失或爆炸。
"""
import numpy as np


def spectral_radius(W):
    """Spectral radius of a square matrix.

    Args:
        W: (H, H) float array.

    Returns:
        a Python float: the largest absolute value (modulus) among the
        eigenvalues of W, complex eigenvalues included.

    方阵的谱半径。

    参数：
        W：(H, H) 浮点数组。

    返回：
        Python float：W 所有特征值（包括复特征值）中绝对值（模）的最大值。
    """
    raise NotImplementedError


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    """How large the gradient is at every time step.

    Run the RNN forward (Hs = rnn_forward(X, W_x, W_h, b, h0)) and take the
    loss L = sum(Hs[:, T-1]), the sum of the last states only.

    Args:
        X: (B, T, d); W_x: (d, H); W_h: (H, H); b: (H,);
        h0: (B, H), None means zeros.

    Returns:
        (T,) float array; entry t is the Frobenius norm, over the whole
        batch, of the total gradient dL/dHs[:, t]. Entry T-1 is sqrt(B*H).

    每个时间步上的梯度大小。
    先做前向 Hs = rnn_forward(X, W_x, W_h, b, h0)，损失取
    L = sum(Hs[:, T-1])，即只对最后一步的状态求和。

    参数：
        X：(B, T, d)；W_x：(d, H)；W_h：(H, H)；b：(H,)；
        h0：(B, H)，None 表示全零。

    返回：
        (T,) 浮点数组；第 t 项为整批的总梯度 dL/dHs[:, t] 的 Frobenius 范数。
        第 T-1 项等于 sqrt(B*H)。
    """
    raise NotImplementedError
