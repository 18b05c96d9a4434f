"""Exercise `masking`: padded batches of sequences of different lengths.

`lengths` is an int array (B,) with 0 <= lengths[i] <= T. Positions
t >= lengths[i] are padding and may hold any value, NaN included: no padded
value may influence a result.

练习 `masking`：把不同长度的序列填充成一批。
`lengths` 为 (B,) 的整数数组，0 <= lengths[i] <= T。位置 t >= lengths[i]
是填充，可能是任意值（包括 NaN）：填充值不得影响任何结果。
"""
import numpy as np


def sequence_mask(lengths, T):
    """Boolean mask of the real (non-padded) positions.

    Args:
        lengths: (B,) ints, 0 <= lengths[i] <= T.
        T: the padded length.

    Returns:
        (B, T) bool array, True exactly at the valid positions of each row.

    有效（非填充）位置的布尔掩码。

    参数：
        lengths：(B,) 整数，0 <= lengths[i] <= T。
        T：填充后的长度。

    返回：
        (B, T) 布尔数组，恰好在每行的有效位置为 True。
    """
    raise NotImplementedError


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    """RNN forward pass over a padded batch.

    Args:
        X: (B, T, d), padded (padding may be NaN).
        lengths: (B,) ints.
        W_x: (d, H), W_h: (H, H), b: (H,).
        h0: (B, H) initial state; None means zeros.

    Returns:
        (Hs, h_last):
        Hs: (B, T, H), the states at valid positions, exactly zero at padded
        positions.
        h_last: (B, H), h_last[i] is the state at step lengths[i] - 1, or
        h0[i] when lengths[i] == 0.

    填充批次上的 RNN 前向计算。

    参数：
        X：(B, T, d)，已填充（填充处可能是 NaN）。
        lengths：(B,) 整数。
        W_x：(d, H)，W_h：(H, H)，b：(H,)。
        h0：(B, H) 初始状态；None 表示全零。

    返回：
        (Hs, h_last)：
        Hs：(B, T, H)，有效位置为各步状态，填充位置严格为零。
        h_last：(B, H)，h_last[i] 为第 lengths[i] - 1 步的状态；
        lengths[i] == 0 时为 h0[i]。
    """
    raise NotImplementedError


def last_valid_state(Hs, lengths):
    """The state at each row's last valid step.

    Args:
        Hs: (B, T, H) states (padded positions may hold anything, NaN included).
        lengths: (B,) ints.

    Returns:
        (B, H): row i is Hs[i, lengths[i] - 1]; zeros when lengths[i] == 0.

    每行最后一个有效时间步的状态。

    参数：
        Hs：(B, T, H) 状态（填充位置可能是任意值，包括 NaN）。
        lengths：(B,) 整数。

    返回：
        (B, H)：第 i 行为 Hs[i, lengths[i] - 1]；lengths[i] == 0 时为零。
    """
    raise NotImplementedError


def masked_mean_pool(Hs, lengths):
    """Average of each row's valid states.

    Args:
        Hs: (B, T, H) states (padded positions may hold anything, NaN included).
        lengths: (B,) ints.

    Returns:
        (B, H): the mean of Hs[i, :lengths[i]]; zeros (never NaN) for a
        length-0 row.

    每行有效状态的平均值。

    参数：
        Hs：(B, T, H) 状态（填充位置可能是任意值，包括 NaN）。
        lengths：(B,) 整数。

    返回：
        (B, H)：Hs[i, :lengths[i]] 的平均；长度为 0 的行为零（不能是 NaN）。
    """
    raise NotImplementedError


def masked_cross_entropy(logits, targets, lengths):
    """Token-level cross-entropy over the valid positions of a padded batch.

    Args:
        logits: (B, T, V) unnormalised scores (values as large as 1e3 occur).
        targets: (B, T) ints; at padded positions they may be any integer,
            -1 included.
        lengths: (B,) ints.

    Returns:
        a Python float: the mean of -log softmax(logits[i, t])[targets[i, t]]
        over all valid positions (i, t) of the whole batch; 0.0 when no
        position is valid. Must stay finite for large logits.

    填充批次有效位置上的词元级交叉熵。

    参数：
        logits：(B, T, V) 未归一化分数（可能大到 1e3）。
        targets：(B, T) 整数；填充位置可以是任意整数，包括 -1。
        lengths：(B,) 整数。

    返回：
        Python float：整批所有有效位置 (i, t) 上
        -log softmax(logits[i, t])[targets[i, t]] 的平均；没有有效位置时为 0.0。
        logits 很大时结果也必须有限。
    """
    raise NotImplementedError
