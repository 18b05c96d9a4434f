"""Exercise `forward`: unroll the RNN over a sequence.

练习 `forward`：沿时间展开 RNN。
"""
import numpy as np


def rnn_forward(X, W_x, W_h, b, h0=None):
    """Run the RNN step over every time step of a batch of sequences.

    Args:
        X: (B, T, d) inputs, batch-first.
        W_x: (d, H), W_h: (H, H), b: (H,) parameters, shared by all steps.
        h0: (B, H) initial state; None means zeros.

    Returns:
        Hs: (B, T, H) float64, where Hs[:, t] is the state after consuming
        X[:, t]. Each state is carried into the next step. Do not modify the
        inputs and keep no state between calls.

    对一批序列的每个时间步执行 RNN 更新。

    参数：
        X：(B, T, d)，批次维在前。
        W_x：(d, H)，W_h：(H, H)，b：(H,)，所有时间步共享。
        h0：(B, H) 初始状态；None 表示全零。

    返回：
        Hs：(B, T, H) 的 float64 数组，Hs[:, t] 为读入 X[:, t] 之后的状态。
        每一步的状态要传入下一步。不要修改输入，调用之间不保留状态。
    """
    raise NotImplementedError
