"""Exercise `params`: count the parameters of an RNN.

练习 `params`：统计 RNN 的参数数量。
"""
import numpy as np


def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    """Number of parameters of a plain RNN stack plus an optional linear head.

    The stack is laid out like a common deep-learning library's plain RNN:
    - every layer has one set of W_x, W_h and bias per direction
      (2 directions when `bidirectional`);
    - layer 0 reads `input_size` features; every later layer reads the
      concatenated outputs of the layer below (hidden_size * directions);
    - `double_bias`: each layer and direction stores two bias vectors of
      size hidden_size instead of one;
    - when `output_size > 0`, a linear head with a bias maps
      hidden_size * directions features to `output_size` outputs.

    Returns:
        a Python int.

    普通 RNN 堆叠（可选线性输出头）的参数总数。
    结构与常见深度学习库的普通 RNN 相同：
    - 每层每个方向各有一套 W_x、W_h 与偏置（`bidirectional` 时有 2 个方向）；
    - 第 0 层读入 `input_size` 维特征；之后每层读入下一层各方向拼接后的输出
      （hidden_size * 方向数）；
    - `double_bias`：每层每个方向存两个长度为 hidden_size 的偏置向量；
    - `output_size > 0` 时，再接一个带偏置的线性头，
      从 hidden_size * 方向数 维映射到 `output_size` 维。

    返回：
        Python int。
    """
    raise NotImplementedError
