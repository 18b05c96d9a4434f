"""Exercises `step` and `scalar`: one step of a vanilla RNN.

练习 `step` 与 `scalar`：普通 RNN 的一次状态更新。
"""
import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    """One step of a single-layer vanilla RNN with tanh activation.

    Row-vector convention: combine the current input (through W_x) and the
    previous state (through W_h), add the bias b, apply tanh.

    Args:
        x_t: (B, d) inputs at this step.
        h_prev: (B, H) previous hidden state.
        W_x: (d, H) input weights.
        W_h: (H, H) recurrent weights.
        b: (H,) bias.

    Returns:
        (B, H) float64 array, the new state h_t. Do not modify the inputs.

    单层普通 RNN 的一步，激活函数为 tanh。
    行向量约定：当前输入经 W_x、上一步状态经 W_h 映射后相加，再加偏置 b，
    最后取 tanh。

    参数：
        x_t：(B, d)，本时刻输入。
        h_prev：(B, H)，上一步隐藏状态。
        W_x：(d, H)，输入权重。
        W_h：(H, H)，循环权重。
        b：(H,)，偏置。

    返回：
        (B, H) 的 float64 数组，即新状态 h_t。不要修改输入。
    """
    raise NotImplementedError


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    """The scalar RNN of chapter 14, section 3.

    Input and state are single numbers. Start from state 0.0 and, for every
    element of `sequence` in order, update the state with the RNN step (input
    weight w_x, recurrent weight w_h, bias b, tanh).

    Returns:
        list[float] of the same length as `sequence`: the state after each
        element.

    第十四篇第 3 节的标量 RNN。
    输入与状态都是一个数。从状态 0.0 开始，按顺序对 `sequence` 的每个元素
    做一次 RNN 更新（输入权重 w_x、循环权重 w_h、偏置 b、tanh）。

    返回：
        与 `sequence` 等长的 list[float]：每个元素之后的状态。
    """
    raise NotImplementedError
