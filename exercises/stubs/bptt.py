"""Exercises `bptt`, `clipping` and `truncation`: training through time.

练习 `bptt`、`clipping` 与 `truncation`：沿时间反向传播及其工程处理。
"""
import numpy as np


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    """Backpropagation through time (BPTT).

    The forward pass is Hs = rnn_forward(X, W_x, W_h, b, h0) and the loss is
    L = sum(Hs * dHs), i.e. dHs (B, T, H) is the upstream gradient of every
    state.

    Args:
        X: (B, T, d); W_x: (d, H); W_h: (H, H); b: (H,);
        dHs: (B, T, H); h0: (B, H), None means zeros.

    Returns:
        dict of the gradients of L:
        "dX" (B, T, d), "dh0" (B, H), "dW_x" (d, H), "dW_h" (H, H), "db" (H,).

    沿时间反向传播（BPTT）。
    前向为 Hs = rnn_forward(X, W_x, W_h, b, h0)，损失为 L = sum(Hs * dHs)，
    即 dHs (B, T, H) 是每个状态收到的上游梯度。

    参数：
        X：(B, T, d)；W_x：(d, H)；W_h：(H, H)；b：(H,)；
        dHs：(B, T, H)；h0：(B, H)，None 表示全零。

    返回：
        L 的梯度字典：
        "dX" (B, T, d)、"dh0" (B, H)、"dW_x" (d, H)、"dW_h" (H, H)、"db" (H,)。
    """
    raise NotImplementedError


def clip_by_global_norm(grads, max_norm):
    """Gradient clipping by the global norm.

    Args:
        grads: dict name -> float array.
        max_norm: positive float.

    Returns:
        (clipped, total_norm): total_norm is the L2 norm of all arrays taken
        together, before clipping (a float). When total_norm > max_norm,
        every array is multiplied by max_norm / total_norm; otherwise the
        values are unchanged. `clipped` is a new dict; the input dict and its
        arrays must not be modified.

    按全局范数裁剪梯度。

    参数：
        grads：名称 -> 浮点数组 的字典。
        max_norm：正数。

    返回：
        (clipped, total_norm)：total_norm 为所有数组合在一起的 L2 范数
        （裁剪前，float）。total_norm > max_norm 时，每个数组都乘以
        max_norm / total_norm；否则数值不变。`clipped` 是新字典；
        不得修改输入字典及其中的数组。
    """
    raise NotImplementedError


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    """Truncated BPTT with chunks of k steps.

    Same forward pass, loss, arguments and returned dict as rnn_backward.
    The time steps are split into consecutive chunks [0, k), [k, 2k), ...
    The state entering a chunk is treated as a constant, so no gradient
    crosses a chunk boundary. Parameter gradients are summed over all
    chunks; dh0 only receives gradient through the first chunk. With
    k >= T the result equals rnn_backward.

    截断 BPTT，每段 k 步。
    前向、损失、参数与返回的字典都与 rnn_backward 相同。
    时间步被切成连续的段 [0, k)、[k, 2k)……进入每段的状态视为常数，
    因此梯度不会跨越段边界。参数梯度对所有段求和；dh0 只经由第一段获得梯度。
    k >= T 时结果与 rnn_backward 相同。
    """
    raise NotImplementedError
