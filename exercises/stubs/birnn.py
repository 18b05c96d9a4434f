"""Exercise `birnn`: a bidirectional RNN over a padded batch.

练习 `birnn`：填充批次上的双向 RNN。
"""
import numpy as np


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    """States of a bidirectional RNN, concatenated along the last axis.

    Args:
        X: (B, T, d) padded inputs (padding may be NaN); lengths: (B,) ints.
        fwd, bwd: tuples (W_x, W_h, b) of the forward and the backward
            direction, W_x (d, H), W_h (H, H), b (H,).
        h0: (B, H) initial state of both directions; None means zeros.

    Returns:
        (B, T, 2H) array.
        [..., :H] is the masked forward pass (as rnn_forward_masked).
        [..., H:] at step t is the state of a pass that runs over each
        sequence's valid part in reverse, starting from its own last valid
        step lengths[i] - 1 down to step 0, placed back at step t (the
        position of the input it has just consumed).
        Both halves are zero at padded positions.

    双向 RNN 的状态，沿最后一维拼接。

    参数：
        X：(B, T, d) 填充后的输入（填充处可能是 NaN）；lengths：(B,) 整数。
        fwd、bwd：前向与反向方向的 (W_x, W_h, b)，
            W_x (d, H)，W_h (H, H)，b (H,)。
        h0：(B, H)，两个方向共同的初始状态；None 表示全零。

    返回：
        (B, T, 2H) 数组。
        [..., :H] 为带掩码的前向计算（同 rnn_forward_masked）。
        [..., H:] 在第 t 步为反向计算的状态：对每条序列的有效部分倒序读入，
        从它自己的最后有效步 lengths[i] - 1 读到第 0 步，
        读入第 t 步输入后的状态放回位置 t。
        两半在填充位置都为零。
    """
    raise NotImplementedError
