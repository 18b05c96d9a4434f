"""Exercise `readout`: many-to-one classification.

练习 `readout`：多对一分类读出。
"""
import numpy as np


def softmax(z, axis=-1):
    """Softmax of z along `axis`.

    Args:
        z: float array of any shape; values as large as 1e3 occur.
        axis: the axis that is normalised.

    Returns:
        an array of z's shape, non-negative, summing to 1 along `axis`,
        finite (no inf/NaN) for large inputs.

    沿 `axis` 的 softmax。

    参数：
        z：任意形状的浮点数组；数值可能大到 1e3。
        axis：归一化的轴。

    返回：
        与 z 同形状的数组，非负、沿 `axis` 之和为 1，输入很大时也不能出现
        inf/NaN。
    """
    raise NotImplementedError


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    """Class probabilities of a many-to-one RNN classifier.

    Args:
        X: (B, T, d) padded inputs (padding may be NaN); lengths: (B,) ints.
        W_x: (d, H), W_h: (H, H), b: (H,) RNN parameters; initial state zero.
        W_o: (H, C), b_o: (C,) the linear output layer.

    Returns:
        (B, C): softmax(h_last @ W_o + b_o), where h_last is each sequence's
        state at its last valid step (the masked forward pass, h0 = 0).

    多对一 RNN 分类器的类别概率。

    参数：
        X：(B, T, d) 填充后的输入（填充处可能是 NaN）；lengths：(B,) 整数。
        W_x：(d, H)，W_h：(H, H)，b：(H,) 为 RNN 参数；初始状态为零。
        W_o：(H, C)，b_o：(C,) 为线性输出层。

    返回：
        (B, C)：softmax(h_last @ W_o + b_o)，h_last 为每条序列最后一个有效
        时间步的状态（带掩码的前向计算，h0 = 0）。
    """
    raise NotImplementedError
